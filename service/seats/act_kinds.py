"""Every act a caller makes in a game, in one shape: an `ActRequest` whose body names the
act, and one `ActKind` per body type saying who may make it and how it is applied.

A seat's acts (a move, a commitment, a reveal, a resignation, leaving an open seat) are made
with the seat's token; the creator's acts (aborting, filling the open seats with bots) with
the API key that created the game, checked in one place (`Answers.act`,
`service.play.access.owns`). `Answers.act` is the one path they all take.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import msgspec

from domain.match import Abort, Act, CommitSeal, MakeMove, Resign, RevealSeal
from service.lobby import invites as open_seats
from service.play.access import Caller
from service.play.errors import InvalidRequest
from service.play.game_service import GameService
from service.play.records import Applied, Submission
from service.store.keys import owner_idempotency, seat_idempotency
from service.views.lobby_schemas import FillRequest
from service.views.schemas import Commit, Reveal


@dataclass(frozen=True, slots=True)
class Resignation:
    """The body of a resignation (nothing is sent): the seat's bot plays on."""


@dataclass(frozen=True, slots=True)
class Abortion:
    """The body of an abort (nothing is sent): the game ends without a result."""


@dataclass(frozen=True, slots=True)
class Leaving:
    """The body of leaving a claimed seat before the start (nothing is sent)."""


# How an act is applied: the game service, the request and the acting seat (-1: the
# creator); one round trip, the answer's `Applied`.
Apply = Callable[[GameService, "ActRequest", int], Awaitable[Applied]]


@dataclass(frozen=True, slots=True)
class ActRequest:
    """A caller's act as its client sent it.

    ``body``: what the act is (a move, a `Commit`, a `Reveal`, a `FillRequest`, a
    `Resignation`, ...); ``raw``: the body as sent (a reveal's move is hashed exactly as
    sent, and an Idempotency-Key's fingerprint covers it); ``expected_version``: If-Match;
    ``wants_view``: Prefer: return=representation (the answer carries the view after it);
    ``caller``: who acts when no token is sent, told apart already (a play socket opened
    with a stream ticket: service/api/v1/play.py).
    """

    game_id: str
    authorization: str | None
    body: object
    raw: bytes = b""
    idempotency_key: str | None = None
    expected_version: int | None = None
    wants_view: bool = False
    caller: Caller | None = None


@dataclass(frozen=True, slots=True)
class ActKind:
    """Who may make an act and how it is applied.

    ``latest``: the caller is authorised on the game's latest state (a resignation: a seat
    resigned a moment ago may not resign again) rather than on the cached snapshot (the
    seats and their tokens, which never change); ``owner``: an act of the game's creator,
    what its API key is needed for (401 without one) and the refusal of another key (403).
    """

    apply: Apply
    latest: bool = False
    owner: tuple[str, str] | None = None


async def _seat_act(games: GameService, request: ActRequest, seat: int) -> Applied:
    """A move, a commitment or a reveal: decided and appended in one round trip."""
    key = request.idempotency_key
    return await games.act(
        Submission(
            request.game_id,
            act_of(request.body, request.raw, seat),
            key=seat_idempotency(seat, key) if key else None,
            # An act without a key has nothing to compare a fingerprint with.
            fingerprint=fingerprint(route_of(request.body), seat, request.raw) if key else "",
            expected_version=request.expected_version,
        )
    )


async def _resign(games: GameService, request: ActRequest, seat: int) -> Applied:
    key = request.idempotency_key
    key = seat_idempotency(seat, key) if key else None
    return await games.act(_ending(request.game_id, Resign(seat), key, "resign", seat))


async def _abort(games: GameService, request: ActRequest, seat: int) -> Applied:
    key = owner_idempotency(request.idempotency_key) if request.idempotency_key else None
    return await games.act(_ending(request.game_id, Abort(), key, "abort", seat))


async def _leave(games: GameService, request: ActRequest, seat: int) -> Applied:
    return await open_seats.leave(games, request.game_id, seat)


async def _fill(games: GameService, request: ActRequest, seat: int) -> Applied:
    body = request.body
    assert isinstance(body, FillRequest)  # the kind of a FillRequest body
    return await open_seats.fill(games, request.game_id, body.level)


def _ending(game_id: str, act: Act, key: str | None, route: str, seat: int) -> Submission:
    """A resignation or an abort, its idempotency fingerprint over its route and seat."""
    return Submission(game_id, act, key=key, fingerprint=fingerprint(route, seat, b""))


SEAT_ACT = ActKind(_seat_act)
# Every act but a move (any other body), by its body's type.
KINDS: dict[type, ActKind] = {
    Commit: SEAT_ACT,
    Reveal: SEAT_ACT,
    Resignation: ActKind(_resign, latest=True),
    Leaving: ActKind(_leave, latest=True),
    Abortion: ActKind(
        _abort,
        latest=True,
        owner=(
            "aborting a game needs its API key",
            "only the API key that created the game may abort it",
        ),
    ),
    FillRequest: ActKind(
        _fill,
        owner=(
            "filling seats needs the game's API key",
            "only the API key that created the game may fill its seats",
        ),
    ),
}


def kind_of(body: object) -> ActKind:
    """The act's kind: a move unless its body says otherwise."""
    return KINDS.get(type(body), SEAT_ACT)


def act_of(body: object, raw: bytes, seat: int) -> Act:
    """The act a seat act's body stands for, by ``seat``."""
    if isinstance(body, Commit):
        return CommitSeal(seat, body.commitment, body.step)
    if isinstance(body, Reveal):
        # The commitment hashes the move exactly as the client sent it, so read it raw.
        sent = msgspec.json.decode(raw)
        move = sent.get("move") if isinstance(sent, dict) else None
        if not isinstance(move, dict):
            raise InvalidRequest("move must be an object")
        return RevealSeal(seat, move, body.salt)
    return MakeMove(seat, msgspec.to_builtins(body))


def route_of(body: object) -> str:
    """The act's route, as its Idempotency-Key fingerprint names it (stored: never change)."""
    if isinstance(body, Commit):
        return "commitments"
    return "reveals" if isinstance(body, Reveal) else "moves"


def fingerprint(route: str, seat: int, body: bytes) -> str:
    """What an Idempotency-Key was used for: the route, the seat and the body."""
    return hashlib.sha256(f"{route}|{seat}|".encode() + body).hexdigest()
