"""What the play routes answer: a caller's view of a game, and the answer to an act.

Every act is one value (`ActRequest`, service/seats/act_kinds.py: a move, a commitment, a
reveal, a resignation, an abort, leaving a seat, filling the open seats); `Answers.act`
authorises it, hands it to the game service (one round trip) and answers it. The handlers
of service/api/v1/acts.py and seating.py call it, and so does the hot layer
(service/api/v1/hot_routes.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from service.live.feed import LiveFeed
from service.play.access import Access, Caller, owns
from service.play.deadlines import DeadlineStore
from service.play.errors import Forbidden
from service.play.game_service import GameService
from service.play.presence import PresenceTracker, is_over
from service.play.records import Applied, Loaded
from service.seats.act_kinds import ActRequest, kind_of
from service.views.presenter import awaiting_of, event_records, game_view
from service.views.schemas import GameView, MoveAccepted
from service.views.versions import etag, not_modified


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
        self,
        games: GameService,
        access: Access,
        deadlines: DeadlineStore,
        live: LiveFeed,
        presence: PresenceTracker,
    ) -> None:
        self.games = games
        self.access = access
        self.deadlines = deadlines
        self.live = live
        self.presence = presence  # a seat's requests are noted, views show every seat's

    async def view(self, loaded: Loaded, caller: Caller) -> tuple[GameView, dict[str, str]]:
        """The caller's view of a game as `GET /v1/games/{id}` answers it, and its headers."""
        awaiting = awaiting_of(loaded, await self.deadlines.shown(loaded))
        headers = {"ETag": etag(loaded.match.version), "Vary": "Authorization"}
        presence = await self.presence.of(loaded)
        return game_view(loaded, caller, awaiting, presence), headers

    async def view_of(
        self, game_id: str, authorization: str | None
    ) -> tuple[GameView, dict[str, str]]:
        """`view` for a game and a credential (no long poll, no If-None-Match)."""
        loaded = await self.games.load(game_id)
        caller = await self.access.viewer(loaded, authorization)
        self.presence.seen(game_id, caller.seat, is_over(loaded))
        return await self.view(loaded, caller)

    async def view_polled(
        self, game_id: str, authorization: str | None, poll: Poll
    ) -> tuple[GameView | None, dict[str, str], int]:
        """`view_of`, waiting first for a version past ``poll.after_version`` (up to
        ``poll.wait`` seconds); no view (None) while the client's copy is current
        (``poll.if_none_match``). Also the version answered."""
        loaded = await self.games.load(game_id)
        caller = await self.access.viewer(loaded, authorization)
        over = is_over(loaded)
        self.presence.seen(game_id, caller.seat, over)
        waits = poll.wait and loaded.match.version <= poll.after_version
        if waits:
            with self.presence.feed_open(game_id, caller.seat, over):  # a long poll in flight
                moved = await self.live.wait_past(game_id, poll.after_version, poll.wait)
            self.presence.seen(game_id, caller.seat, over)
            if moved:
                loaded = await self.games.load(game_id)
        version = loaded.match.version
        if not_modified(poll.if_none_match, version):
            return None, {}, version
        view, headers = await self.view(loaded, caller)
        return view, headers, version

    async def act(self, request: ActRequest) -> tuple[MoveAccepted, dict[str, str]]:
        """Any act (service/seats/act_kinds.py) authorised, applied, and the answer with its
        headers."""
        kind = kind_of(request.body)
        # The seats and their tokens never change: the cached snapshot (no round trip) is
        # enough to authorise, unless the act's kind needs the latest state; the act itself
        # costs one round trip.
        load = self.games.load if kind.latest else self.games.snapshot
        if kind.owner is None:
            loaded = await load(request.game_id)
            seat = await self.access.acting_seat(loaded, request.authorization, request.caller)
            caller = Caller(seat=seat)
            # Written later, off the request path.
            self.presence.seen(request.game_id, seat, is_over(loaded))
        else:  # the creator's act: its API key first (401), then the game (404), then 403
            needed_for, refusal = kind.owner
            key_id = self.access.api_key(request.authorization, needed_for)
            if not owns(await load(request.game_id), key_id):
                raise Forbidden(refusal)
            seat, caller = -1, Caller()
        applied = await kind.apply(self.games, request, seat)
        return await self._answer(applied, caller, request.wants_view)

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
            view = game_view(after, caller, awaiting, await self.presence.of(after))
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
