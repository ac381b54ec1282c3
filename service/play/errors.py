"""The errors of playing a game; every error the service answers is a `ServiceError`.

Each carries the problem type it is answered with (``code``, see the catalogue in
`service.http.problems`) and a detail sentence; the HTTP layer maps it to a problem
response in one place. The layers above add their own in their own ``errors`` module
(`service.lobby.errors`, `service.notify.errors`, `service.live.errors`).
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    code = "invalid-request"

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail

    def problem_fields(self) -> dict[str, Any]:
        """Fields the problem response carries besides its type and detail."""
        return {}


class InvalidRequest(ServiceError):
    code = "invalid-request"


class Unauthorized(ServiceError):
    code = "unauthorized"


class Forbidden(ServiceError):
    code = "forbidden"


class GameNotFinished(ServiceError):
    code = "game-not-finished"


class Unavailable(ServiceError):
    code = "unavailable"


class UnknownSeat(ServiceError):
    """A seat number the game does not have (a well-formed request the game refuses)."""

    code = "unknown-seat"


class GameNotFound(ServiceError):
    code = "unknown-game"

    def __init__(self, game: str, kinds: tuple[str, ...] = ()) -> None:
        # ``kinds``: the game kinds there are, when ``game`` named a kind (a typo's answer
        # lists them), not a game's id.
        listed = f"; the games are {', '.join(map(repr, kinds))}" if kinds else ""
        super().__init__(f"no game {game!r}{listed}")
        self.game = game


class VersionMismatch(ServiceError):
    code = "version-mismatch"

    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current

    def problem_fields(self) -> dict[str, Any]:
        return {"current_version": self.current}


class IdempotencyMismatch(ServiceError):
    """An Idempotency-Key was reused for a different request."""

    code = "idempotency-mismatch"


class Contention(ServiceError):
    """Too many concurrent writers; the client may retry."""

    code = "busy"


class GameExists(Contention):
    """A game with that id exists already (a rematch made by another request)."""


class InvalidExternalId(ServiceError):
    """An external_id the identity rule refuses (service/play/identities.py)."""

    code = "invalid-external-id"


class InvalidName(ServiceError):
    """A seat name the identity rule's characters refuse (service/play/identities.py)."""

    code = "invalid-name"


class ActiveGameLimit(ServiceError):
    code = "active-game-limit"
