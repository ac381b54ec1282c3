"""What the play routes answer: a caller's view of a game, and the answer to an act.

An act request is one value (`ActRequest`); `Answers.act` authorises it, hands the act to the
game service (one round trip) and answers it. The handlers of service/api/v1/acts.py (and
the hot layer, service/api/v1/hot_routes.py) call it; so do the seat routes (a claim, a
leave, a fill) and the endings (a resignation, an abort) through `Answers.applied`, which
answers an act already applied.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import msgspec

from domain.match import Act, CommitSeal, MakeMove, RevealSeal
from service.live.feed import LiveFeed
from service.play.access import Access, Caller
from service.play.deadlines import DeadlineStore
from service.play.errors import InvalidRequest
from service.play.game_service import GameService
from service.play.records import Applied, Loaded, Submission
from service.store.keys import seat_idempotency
from service.views.presenter import awaiting_of, event_records, game_view
from service.views.schemas import Commit, GameView, MoveAccepted, Reveal
from service.views.versions import etag, not_modified

# The body of an act: a move (one item of the view's `legal`), a commitment or a reveal.
ActBody = Any


@dataclass(frozen=True, slots=True)
class ActRequest:
    """A seat's act as its client sent it.

    ``raw``: the body as sent (a reveal's move is hashed exactly as sent, and an
    Idempotency-Key's fingerprint covers it); ``expected_version``: If-Match;
    ``wants_view``: Prefer: return=representation (the answer carries the view after it).
    """

    game_id: str
    authorization: str | None
    body: ActBody
    raw: bytes
    idempotency_key: str | None = None
    expected_version: int | None = None
    wants_view: bool = False


@dataclass(frozen=True, slots=True)
class Poll:
    """A view read's conditions: a long poll (``wait`` seconds at most for a version past
    ``after_version``) and the ETag of the client's copy."""

    after_version: int = 0
    wait: int = 0
    if_none_match: str | None = None


class Answers:
    """The view and act answers, from the game service, the callers' access, the turn
    deadlines (every view and act answer shows them) and the live readers (a long poll
    waits on them)."""

    def __init__(
        self, games: GameService, access: Access, deadlines: DeadlineStore, live: LiveFeed
    ) -> None:
        self.games = games
        self.access = access
        self.deadlines = deadlines
        self.live = live

    async def view(self, loaded: Loaded, caller: Caller) -> tuple[GameView, dict[str, str]]:
        """The caller's view of a game as `GET /v1/games/{id}` answers it, and its headers."""
        awaiting = awaiting_of(loaded, await self.deadlines.shown(loaded))
        headers = {"ETag": etag(loaded.match.version), "Vary": "Authorization"}
        return game_view(loaded, caller, awaiting), headers

    async def view_of(
        self, game_id: str, authorization: str | None
    ) -> tuple[GameView, dict[str, str]]:
        """`view` for a game and a credential (no long poll, no If-None-Match)."""
        loaded = await self.games.load(game_id)
        return await self.view(loaded, await self.access.viewer(loaded, authorization))

    async def view_polled(
        self, game_id: str, authorization: str | None, poll: Poll
    ) -> tuple[GameView | None, dict[str, str], int]:
        """`view_of`, waiting first for a version past ``poll.after_version`` (up to
        ``poll.wait`` seconds); no view (None) while the client's copy is current
        (``poll.if_none_match``). Also the version answered."""
        loaded = await self.games.load(game_id)
        caller = await self.access.viewer(loaded, authorization)
        waits = poll.wait and loaded.match.version <= poll.after_version
        if waits and await self.live.wait_past(game_id, poll.after_version, poll.wait):
            loaded = await self.games.load(game_id)
        version = loaded.match.version
        if not_modified(poll.if_none_match, version):
            return None, {}, version
        view, headers = await self.view(loaded, caller)
        return view, headers, version

    async def act(self, request: ActRequest) -> tuple[MoveAccepted, dict[str, str]]:
        """A seat's act (move, commitment, reveal) applied, and the answer with its headers."""
        # The seats and their tokens never change: the cached snapshot (no round trip) is
        # enough to authorise; the act itself costs one round trip.
        snapshot = await self.games.snapshot(request.game_id)
        seat = await self.access.acting_seat(snapshot, request.authorization)
        key = request.idempotency_key
        applied = await self.games.act(
            Submission(
                request.game_id,
                act_of(request.body, request.raw, seat),
                key=seat_idempotency(seat, key) if key else None,
                # An act without a key has nothing to compare a fingerprint with.
                fingerprint=fingerprint(route_of(request.body), seat, request.raw) if key else "",
                expected_version=request.expected_version,
            )
        )
        return await self._answer(applied, Caller(seat=seat), request.wants_view)

    async def applied(self, applied: Applied, caller: Caller) -> MoveAccepted:
        """The answer to an act already applied (a claim, a resignation, ...), without a
        view."""
        answer, _ = await self._answer(applied, caller, wants_view=False)
        return answer

    async def _answer(
        self, applied: Applied, caller: Caller, wants_view: bool
    ) -> tuple[MoveAccepted, dict[str, str]]:
        """Its version, the events the caller may see, the seats awaited after it with their
        deadlines (as the follow-up records them just after the answer), and the view."""
        after = applied.loaded
        if applied.replayed:  # a retried answer: the game as it is now
            after = await self.games.load(after.game_id)
        acted = (caller.seat,) if caller.seat is not None and not applied.replayed else ()
        awaiting = awaiting_of(after, await self.deadlines.shown(after, acted))
        headers: dict[str, str] = {}
        view = None
        if wants_view:
            view = game_view(after, caller, awaiting)
            headers["Preference-Applied"] = "return=representation"
            headers["Vary"] = "Prefer"
        answer = MoveAccepted(
            version=applied.version,
            events=event_records(applied.loaded, applied.events, caller),
            awaiting=awaiting,
            replayed=applied.replayed,
            view=view,
        )
        return answer, headers


def act_of(body: ActBody, raw: bytes, seat: int) -> Act:
    """The act an act request's body stands for, by ``seat``."""
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


def route_of(body: ActBody) -> str:
    """The act's route, as its Idempotency-Key fingerprint names it (stored: never change)."""
    if isinstance(body, Commit):
        return "commitments"
    return "reveals" if isinstance(body, Reveal) else "moves"


def fingerprint(route: str, seat: int, body: bytes) -> str:
    """What an Idempotency-Key was used for: the route, the seat and the body."""
    return hashlib.sha256(f"{route}|{seat}|".encode() + body).hexdigest()
