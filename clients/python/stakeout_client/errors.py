"""Problems as exceptions: every error answer is ``application/problem+json`` with a stable
``type`` (``urn:stakeout:problem:<code>``); each becomes a `ProblemError`, or the subclass
named for its code, carrying the type and every field the server sent."""

from __future__ import annotations

from typing import Any

PREFIX = "urn:stakeout:problem:"


class ProblemError(Exception):
    """An error answer. Branch on `code` (or the subclass), never on `detail`."""

    code: str = ""

    def __init__(self, status: int, body: dict[str, Any], retry_after: float | None = None):
        self.status = status
        self.body = body
        self.type: str = str(body.get("type", PREFIX + "unknown"))
        self.code = self.type.removeprefix(PREFIX)
        self.title: str = str(body.get("title", ""))
        self.detail: str = str(body.get("detail", ""))
        self.retry_after = retry_after
        super().__init__(f"{status} {self.code}: {self.detail or self.title}")

    @property
    def fields(self) -> dict[str, Any]:
        """The problem's own fields beyond the RFC 9457 ones (``preimage``, ...)."""
        standard = {"type", "title", "status", "detail", "instance"}
        return {k: v for k, v in self.body.items() if k not in standard}


class RevealMismatch(ProblemError):
    """The reveal does not hash to the commitment: `preimage` is the string the server
    hashed from the revealed move and salt; compare it with yours."""

    @property
    def preimage(self) -> str:
        return str(self.body.get("preimage", ""))


class VersionMismatch(ProblemError):
    """``If-Match`` named a version the game has moved on from."""

    @property
    def current_version(self) -> int:
        return int(self.body.get("current_version", 0))


class RateLimited(ProblemError):
    """Over the rate limit, still after the client's retries (`retry_after` seconds)."""


class Unavailable(ProblemError):
    """503: the data store did not answer, or too many writers on one game."""


class NotFound(ProblemError):
    """404: no such path, game, invite, player or ticket."""


class Unauthorized(ProblemError):
    """401: no credential, or one the server does not know."""


class Forbidden(ProblemError):
    """403: a credential that may not do this."""


class Conflict(ProblemError):
    """409: the request does not fit the game or resource as it is now."""


class NotYourTurn(Conflict):
    """409 not-your-turn: the game does not await this seat."""


class GameFinished(Conflict):
    """409 game-finished: the game is over."""


class InvalidRequest(ProblemError):
    """400 or 422: the request breaks a rule (its `code` says which)."""


class IllegalMove(InvalidRequest):
    """422 illegal-move: a rule of the game forbids the move."""


_BY_CODE: dict[str, type[ProblemError]] = {
    "reveal-mismatch": RevealMismatch,
    "version-mismatch": VersionMismatch,
    "too-many-requests": RateLimited,
    "not-your-turn": NotYourTurn,
    "game-finished": GameFinished,
    "illegal-move": IllegalMove,
}
_BY_STATUS: dict[int, type[ProblemError]] = {
    400: InvalidRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    422: InvalidRequest,
    429: RateLimited,
    503: Unavailable,
}


def problem(status: int, body: dict[str, Any], retry_after: float | None = None) -> ProblemError:
    """The exception for an error answer: by its code, else by its status."""
    code = str(body.get("type", "")).removeprefix(PREFIX)
    kind = _BY_CODE.get(code) or _BY_STATUS.get(status, ProblemError)
    return kind(status, body, retry_after)
