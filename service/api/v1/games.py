"""Controllers for games: thin — parse, authorise, hand a decision to the game service."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, Request, get, post
from litestar.params import Body, HeaderParameter, PathParameter, QueryParameter
from litestar.response import Response, ServerSentEvent, Stream

from domain.errors import InvalidOptions
from domain.match import Abort, Act, CommitSeal, MakeMove, Resign, RevealSeal, SeatSpec
from domain.verify import ReplayDocument
from service.api.v1.dependencies import Injected
from service.api.v1.game_list import GameFilter, page_of_games, parse_cursor
from service.http.strictness import etag, not_modified, not_modified_response
from service.live.access import TokenInUrl, ticket_caller
from service.live.event_feed import live_messages
from service.live.view_feed import as_ndjson, as_sse, sse_as_ndjson, view_messages
from service.lobby import invites
from service.play import deadlines
from service.play.auth import Caller, Unauthorized
from service.play.deadlines import with_deadlines
from service.play.errors import Forbidden, GameNotFinished, InvalidRequest
from service.play.game_service import Applied, Created, Loaded
from service.play.replays import replay_document
from service.store.keys import owner_idempotency, seat_idempotency
from service.views.presenter import event_records, game_view
from service.views.schemas import (
    BotSeat,
    Commit,
    CreateGame,
    EventPage,
    GameCreatedResponse,
    GameName,
    GamePage,
    GameStatus,
    GameView,
    Invite,
    Move,
    MoveAccepted,
    OpenSeat,
    Reveal,
    SeatGrant,
)
from service.wiring import Context

GameId = Annotated[
    str,
    PathParameter(description="The game id returned at creation", pattern="^[0-9a-f]{24}$"),
]
Authorization = Annotated[
    str | None,
    HeaderParameter(
        name="Authorization", description="Bearer seat token or API key", required=False
    ),
]
# A page of a listing: where the previous page ended, and how many to list.
PageCursor = Annotated[
    str | None,
    QueryParameter(
        required=False,
        pattern="^[0-9]{1,15}-[0-9a-f]{24}$",
        description="From the previous page's next_cursor",
    ),
]
PageLimit = Annotated[int, QueryParameter(ge=1, le=100, description="Page size")]
# The live feeds' format, asked for with Accept: JSON lines or Server-Sent Events.
FeedAccept = Annotated[
    str | None,
    HeaderParameter(
        name="Accept",
        required=False,
        description="application/x-ndjson for JSON lines; otherwise Server-Sent Events",
    ),
]
IdempotencyKey = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        required=False,
        description="Repeat a request safely: the same key and body answer the first result",
        pattern="^[A-Za-z0-9_.:-]{1,128}$",
    ),
]
IfNoneMatch = Annotated[
    str | None,
    HeaderParameter(
        name="If-None-Match",
        required=False,
        description=(
            "The ETag of a copy the client holds (the game's version, quoted): 304 without "
            "a body while the game is still at that version"
        ),
    ),
]
IfMatch = Annotated[
    str | None,
    HeaderParameter(
        name="If-Match",
        required=False,
        description="Apply only at this version (an integer, quoted or not); 412 otherwise",
        pattern='^"?[0-9]{1,9}"?$',
    ),
]
PreferHeader = Annotated[
    str | None,
    HeaderParameter(
        name="Prefer",
        required=False,
        description=(
            "RFC 7240. `return=representation`: the answer also carries the caller's view "
            "of the game after the act (`view`, as GET /v1/games/{id} gives it to this seat),"
            " so no GET is needed; `Preference-Applied` confirms it."
        ),
        max_length=256,
    ),
]


# The live feed's parameters (GET /v1/games/{id}/stream).
LastEventId = Annotated[
    str | None,
    HeaderParameter(
        name="Last-Event-ID",
        required=False,
        pattern="^[0-9]{1,9}$",
        description="Resume after this version",
    ),
]
StreamAfter = Annotated[
    int | None,
    QueryParameter(ge=0, le=10**9, required=False, description="Start after this version"),
]
StreamFeed = Annotated[
    Literal["events", "view"],
    QueryParameter(
        description="events: the event records; view: the caller's view after each batch"
    ),
]
StreamTicketParameter = Annotated[
    str | None,
    QueryParameter(
        required=False,
        max_length=128,
        description="A single-use stream ticket (POST /v1/games/{id}/stream-tickets) "
        "instead of Authorization",
    ),
]
TokenParameter = Annotated[
    str | None,
    QueryParameter(
        required=False,
        max_length=512,
        description="Refused (400 token-in-url): get a stream ticket instead",
    ),
]


def _wants_representation(prefer: str) -> bool:
    """Whether a Prefer header asks for ``return=representation`` (RFC 7240 §4.2)."""
    for preference in prefer.split(","):
        name, _, value = preference.split(";", 1)[0].partition("=")
        if name.strip().lower() == "return" and value.strip().strip('"').lower() == (
            "representation"
        ):
            return True
    return False


async def _ending(
    ctx: Context, game_id: str, act: Act, key: str | None, route: str, caller: Caller
) -> MoveAccepted:
    """Apply a resignation or an abort and answer it like any act (the act's own snapshot
    redacts its events: no reload)."""
    seat = -1 if caller.seat is None else caller.seat
    applied = await ctx.games.apply(
        game_id,
        lambda rules, match, seed: act,
        idempotency_key=key,
        fingerprint=_fingerprint(route, seat, b""),
    )
    return await act_answer(ctx, applied, caller)


async def act_answer(ctx: Context, applied: Applied, caller: Caller) -> MoveAccepted:
    """The answer to an act without a view: its version, the events the caller may see,
    and the seats awaited after it."""
    after, turn_deadlines = await _after_act(ctx, applied, caller)
    return MoveAccepted(
        version=applied.version,
        events=event_records(applied.loaded, applied.events, caller),
        awaiting=with_deadlines(after.awaited, turn_deadlines or {}),
        replayed=applied.replayed,
    )


async def _turn_deadlines(ctx: Context, loaded: Loaded) -> dict[int, deadlines.Deadline]:
    """The recorded turn deadlines, and those the latest change's follow-up is about to
    record: it runs just after that change was answered, so a read can come first. Those
    are timed from the change itself, as the follow-up will time them."""
    known = await ctx.deadlines.current(loaded.game_id)
    fresh, _ = deadlines.plan(known, loaded, 0)
    if not fresh:
        return known
    latest = await ctx.store.read_range(loaded.game_id, loaded.match.version, loaded.match.version)
    return deadlines.planned(known, loaded, latest[0].at_ms) if latest else known


async def _after_act(
    ctx: Context, applied: Applied, caller: Caller
) -> tuple[Loaded, dict[int, deadlines.Deadline] | None]:
    """The game after an act, and its turn deadlines as they will be recorded for this
    change (the follow-up records them just after the answer): what the answer's
    `awaiting` and `view` show, the same a GET of the view gives afterwards."""
    loaded = applied.loaded
    if applied.replayed:  # a retried answer: the game as it is now
        loaded = await ctx.games.load(loaded.game_id)
    turn_deadlines = None
    if loaded.meta.turn_seconds is not None:  # otherwise no turn has a deadline
        known = await ctx.deadlines.current(loaded.game_id)
        at_ms = applied.events[-1].at_ms if applied.events and not applied.replayed else 0
        turn_deadlines = (
            deadlines.planned(
                known, loaded, at_ms, (caller.seat,) if caller.seat is not None else ()
            )
            if at_ms
            else known
        )
    return loaded, turn_deadlines


# The longest a view read may wait for a new version (`?after_version=N&wait=S`).
MAX_WAIT_SECONDS = 30


def _version(if_match: str | None) -> int | None:
    return None if if_match is None else int(if_match.strip('"'))


async def _seat_caller(ctx: Context, loaded: Loaded, authorization: str | None) -> int:
    if authorization is None:
        raise Unauthorized("a seat token is required")
    caller = await ctx.seat_tokens.caller_of(loaded, ctx.api_keys, authorization)
    if caller.seat is None:
        raise Forbidden("only a seat token may act in a game")
    if caller.seat in loaded.match.resigned:
        raise Forbidden(f"seat {caller.seat} has resigned: a bot plays it now")
    return caller.seat


async def _viewer(ctx: Context, loaded: Loaded, authorization: str | None) -> Caller:
    """The caller, if it may look at this game at all (private games: seats and owner)."""
    caller = await ctx.seat_tokens.caller_of(loaded, ctx.api_keys, authorization)
    owner = caller.api_key_id is not None and caller.api_key_id == loaded.meta.owner
    if loaded.meta.private and caller.seat is None and not owner:
        raise Forbidden("this game is private: only its seats and its creator may look")
    return caller


def _fingerprint(route: str, seat: int, body: bytes) -> str:
    return hashlib.sha256(f"{route}|{seat}|".encode() + body).hexdigest()


def _seat_specs(data: CreateGame) -> list[SeatSpec]:
    return [
        SeatSpec("bot", s.level, s.name)
        if isinstance(s, BotSeat)
        else SeatSpec("open" if isinstance(s, OpenSeat) else "human", None, s.name, s.external_id)
        for s in data.seats
    ]


def _invite_codes(seats: list[SeatSpec]) -> dict[int, str]:
    """An invite code for each open seat."""
    return {i: c for i, c in enumerate(invites.new_codes(len(seats))) if seats[i].type == "open"}


def _creation_answer(
    created: Created, game: str, seats: list[SeatSpec], codes: dict[int, str]
) -> GameCreatedResponse:
    return GameCreatedResponse(
        id=created.game_id,
        game=game,
        version=created.version,
        seed_commitment=created.seed_commitment,
        seats=[
            SeatGrant(
                i,
                s.type,
                s.level,
                created.tokens[i],
                s.name,
                s.external_id,
                Invite(codes[i], invites.INVITE_PREFIX + codes[i]) if i in codes else None,
            )
            for i, s in enumerate(seats)
        ],
    )


async def view_answer(
    ctx: Context, loaded: Loaded, caller: Caller
) -> tuple[GameView, dict[str, str]]:
    """The caller's view of a game as `GET /v1/games/{id}` answers it, and its headers."""
    turn_deadlines = None
    if loaded.meta.turn_seconds is not None:  # otherwise no turn has a deadline
        turn_deadlines = await _turn_deadlines(ctx, loaded)
    headers = {"ETag": etag(loaded.match.version), "Vary": "Authorization"}
    return game_view(loaded, caller, turn_deadlines), headers


async def view_for(
    ctx: Context, game_id: str, authorization: str | None
) -> tuple[GameView, dict[str, str]]:
    """`view_answer` for a game and a credential (no long poll, no If-None-Match)."""
    loaded = await ctx.games.load(game_id)
    return await view_answer(ctx, loaded, await _viewer(ctx, loaded, authorization))


def move_act(data: Move) -> Callable[[int], Act]:
    move = msgspec.to_builtins(data)
    return lambda seat: MakeMove(seat, move)


def commitment_act(data: Commit) -> Callable[[int], Act]:
    return lambda seat: CommitSeal(seat, data.commitment, data.step)


def reveal_act(data: Reveal, body: bytes) -> Callable[[int], Act]:
    # The commitment hashes the move exactly as the client sent it, so read it raw.
    raw = msgspec.json.decode(body)
    move = raw.get("move") if isinstance(raw, dict) else None
    if not isinstance(move, dict):
        raise InvalidRequest("move must be an object")
    return lambda seat: RevealSeal(seat, move, data.salt)


async def act_answer_for(
    ctx: Context,
    game_id: str,
    authorization: str | None,
    act_for: Callable[[int], Act],
    body: bytes,
    route: str,
    idempotency_key: str | None,
    if_match: str | None,
    prefer: str | None,
) -> tuple[MoveAccepted, dict[str, str]]:
    """A seat's act (move, commitment, reveal) applied, and the answer with its headers.

    Client acts do not depend on the state, so a retry of the decision reuses ``act_for``'s
    act; ``body`` is what the Idempotency-Key's fingerprint covers.
    """
    # The seats and their tokens never change: the cached snapshot (no round trip)
    # is enough to authorise; the act itself costs one round trip (GameService.apply).
    seat = await _seat_caller(ctx, await ctx.games.snapshot(game_id), authorization)
    act = act_for(seat)
    # The fingerprint tells a key's retry from another request under the same key; an act
    # without a key has nothing to compare it with (a hash of the body per act spared).
    applied: Applied = await ctx.games.apply(
        game_id,
        lambda rules, match, seed: act,
        idempotency_key=seat_idempotency(seat, idempotency_key) if idempotency_key else None,
        fingerprint=_fingerprint(route, seat, body) if idempotency_key else "",
        if_match=_version(if_match),
    )
    caller = Caller(seat=seat)
    after, turn_deadlines = await _after_act(ctx, applied, caller)
    awaiting = with_deadlines(after.awaited, turn_deadlines or {})
    view: GameView | None = None
    headers: dict[str, str] = {}
    if prefer is not None and _wants_representation(prefer):
        view = game_view(after, caller, turn_deadlines, awaiting)
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


class GamesController(Controller):
    path = "/v1/games"
    tags = ["games"]

    @post(
        "/",
        operation_id="createGame",
        summary="Create a game",
        description=(
            "Needs an API key. Returns one seat token per human seat, shown once. A key may "
            "have `STAKEOUT_MAX_ACTIVE_GAMES` games that have not ended (409 "
            "`active-game-limit` beyond)."
        ),
        status_code=201,
    )
    async def create_game(
        self,
        ctx: Injected[Context],
        data: Annotated[CreateGame, Body()],
        authorization: Authorization = None,
    ) -> GameCreatedResponse:
        key_id = ctx.api_keys.require(authorization, "creating a game needs an API key")
        game = str(type(data).__struct_config__.tag)
        if data.public and data.private:
            raise InvalidOptions("a game is public (in the lobby) or private, not both")
        seats = _seat_specs(data)
        game_id = secrets.token_hex(12)
        codes = _invite_codes(seats)
        async with ctx.quota.slot(key_id) as slot:
            await ctx.invites.record(game_id, codes)
            created = await ctx.games.create(
                key_id,
                game,
                msgspec.to_builtins(data.options),
                seats,
                private=data.private,
                turn_seconds=data.turn_seconds,
                game_id=game_id,
                public=data.public,
            )
            slot.game_id = created.game_id
        if data.public:
            await ctx.lobby.list_public(game_id, game)
        return _creation_answer(created, game, seats, codes)

    @get(
        "/",
        operation_id="listMyGames",
        summary="The calling API key's games",
        description=(
            "Newest first, filtered by status, game and a seat's external_id; cursor "
            "pagination: pass "
            "`next_cursor` back as `cursor` until it is null."
        ),
    )
    async def list_games(
        self,
        ctx: Injected[Context],
        authorization: Authorization = None,
        status: Annotated[
            GameStatus | None,
            QueryParameter(required=False, description="Only games in this status"),
        ] = None,
        game: Annotated[
            GameName | None, QueryParameter(required=False, description="Only this game")
        ] = None,
        cursor: PageCursor = None,
        limit: PageLimit = 20,
        external_id: Annotated[
            str | None,
            QueryParameter(
                required=False,
                min_length=1,
                max_length=200,
                description="Only games with a seat of this external_id (your own user id)",
            ),
        ] = None,
    ) -> GamePage:
        owner = ctx.api_keys.require(authorization, "listing games needs an API key")
        wanted = GameFilter(status, game, external_id)
        return await page_of_games(ctx, owner, parse_cursor(cursor), limit, wanted)

    @get(
        "/{game_id:str}",
        operation_id="getGame",
        opt={"lane": "view"},  # also served by the fast lane (fast_lane.py)
        summary="The caller's view of a game",
        description=(
            "With a seat token: that seat's view and legal moves; without: a spectator's. "
            "Long-poll: with `after_version=N` and `wait=S` (1 to 30 s) the answer waits "
            "until the game's version exceeds N, or S seconds have passed, and then gives "
            "the view as it is (at the timeout, possibly still at version N)."
        ),
    )
    async def get_game(
        self,
        ctx: Injected[Context],
        game_id: GameId,
        authorization: Authorization = None,
        after_version: Annotated[
            int,
            QueryParameter(
                ge=0,
                le=10**9,
                description="Long-poll: answer once the version exceeds this (with `wait`)",
            ),
        ] = 0,
        wait: Annotated[
            int,
            QueryParameter(
                ge=0,
                le=MAX_WAIT_SECONDS,
                description="Long-poll: seconds to wait at most for a version past "
                "`after_version` (0: answer at once)",
            ),
        ] = 0,
        if_none_match: IfNoneMatch = None,
    ) -> Response[GameView]:
        loaded = await ctx.games.load(game_id)
        caller = await _viewer(ctx, loaded, authorization)
        waits = wait and loaded.match.version <= after_version
        if waits and await ctx.live.wait_past(game_id, after_version, wait):
            loaded = await ctx.games.load(game_id)
        if not_modified(if_none_match, loaded.match.version):
            return not_modified_response(loaded.match.version)
        view, headers = await view_answer(ctx, loaded, caller)
        return Response(view, headers=headers)

    async def _act(
        self,
        request: Request[Any, Any, Any],
        ctx: Context,
        game_id: str,
        authorization: str | None,
        act_for: Callable[[int], Act],
        idempotency_key: str | None,
        if_match: str | None,
        route: str,
        prefer: str | None,
    ) -> Response[MoveAccepted]:
        answer, headers = await act_answer_for(
            ctx,
            game_id,
            authorization,
            act_for,
            await request.body(),
            route,
            idempotency_key,
            if_match,
            prefer,
        )
        return Response(answer, headers=headers)

    @post(
        "/{game_id:str}/moves",
        operation_id="postMove",
        opt={"lane": "moves"},  # also served by the fast lane (fast_lane.py)
        summary="Make a public move",
        description=(
            "Body: one item of `legal`. Without If-Match the move is decided on the latest "
            "state; with it, a stale version answers 412."
        ),
        status_code=200,
    )
    async def post_move(
        self,
        request: Request[Any, Any, Any],
        ctx: Injected[Context],
        game_id: GameId,
        data: Annotated[Move, Body(description="One item of the view's legal list")],
        authorization: Authorization = None,
        idempotency_key: IdempotencyKey = None,
        if_match: IfMatch = None,
        prefer: PreferHeader = None,
    ) -> Response[MoveAccepted]:
        return await self._act(
            request,
            ctx,
            game_id,
            authorization,
            move_act(data),
            idempotency_key,
            if_match,
            "moves",
            prefer,
        )

    @post(
        "/{game_id:str}/commitments",
        operation_id="postCommitment",
        opt={"lane": "commitments"},  # also served by the fast lane (fast_lane.py)
        summary="Commit to a sealed move",
        description=(
            "commitment = hex(SHA-256(UTF-8 'sealed-v1|{game_id}|{step}|{seat}|{move}|{salt}')),"
            " move as JSON with sorted keys and no spaces. Commitments of different seats "
            "never conflict."
        ),
        status_code=200,
    )
    async def post_commitment(
        self,
        request: Request[Any, Any, Any],
        ctx: Injected[Context],
        game_id: GameId,
        data: Annotated[Commit, Body()],
        authorization: Authorization = None,
        idempotency_key: IdempotencyKey = None,
        prefer: PreferHeader = None,
    ) -> Response[MoveAccepted]:
        return await self._act(
            request,
            ctx,
            game_id,
            authorization,
            commitment_act(data),
            idempotency_key,
            None,
            "commitments",
            prefer,
        )

    @post(
        "/{game_id:str}/reveals",
        operation_id="postReveal",
        opt={"lane": "reveals"},  # also served by the fast lane (fast_lane.py)
        summary="Reveal a sealed move",
        description="Opens once every seat of the step has committed; must hash to the commitment.",
        status_code=200,
    )
    async def post_reveal(
        self,
        request: Request[Any, Any, Any],
        ctx: Injected[Context],
        game_id: GameId,
        data: Annotated[Reveal, Body()],
        authorization: Authorization = None,
        idempotency_key: IdempotencyKey = None,
        prefer: PreferHeader = None,
    ) -> Response[MoveAccepted]:
        return await self._act(
            request,
            ctx,
            game_id,
            authorization,
            reveal_act(data, await request.body()),
            idempotency_key,
            None,
            "reveals",
            prefer,
        )

    @get(
        "/{game_id:str}/events",
        operation_id="listEvents",
        summary="The event log, as the caller may see it",
        description="Events with version > after, oldest first; follow next_after to page.",
    )
    async def list_events(
        self,
        ctx: Injected[Context],
        game_id: GameId,
        authorization: Authorization = None,
        after: Annotated[
            int, QueryParameter(ge=0, le=10**9, description="Return events after this version")
        ] = 0,
        limit: Annotated[int, QueryParameter(ge=1, le=500, description="Page size")] = 100,
        if_none_match: IfNoneMatch = None,
    ) -> Response[EventPage]:
        loaded, events = await ctx.games.events(game_id, after, limit + 1)
        caller = await _viewer(ctx, loaded, authorization)
        # A page changes only when the game does (new events, has_more): its ETag is the
        # game's version, as the view's.
        version = loaded.match.version
        if not_modified(if_none_match, version):
            return not_modified_response(version)
        page = events[:limit]
        return Response(
            EventPage(
                events=event_records(loaded, page, caller),
                next_after=page[-1].version if page else after,
                has_more=len(events) > limit,
            ),
            headers={"ETag": etag(version), "Vary": "Authorization"},
        )

    @get(
        "/{game_id:str}/replay",
        operation_id="getReplay",
        summary="The full replay of a finished game, with its seed",
        description=(
            "Every event unredacted, the act behind each batch of events, and the shuffle "
            "seed, so anyone can check the seed against seed_commitment and re-run the game "
            "(`stakeout verify REPLAY.json`). 409 while the game is running."
        ),
    )
    async def get_replay(
        self, ctx: Injected[Context], game_id: GameId, authorization: Authorization = None
    ) -> ReplayDocument:
        loaded = await ctx.games.load(game_id)
        await _viewer(ctx, loaded, authorization)
        if loaded.rules.result(loaded.match) is None and not (
            loaded.match.aborted or loaded.match.abandoned
        ):
            raise GameNotFinished("the replay opens when the game is over")
        return await replay_document(ctx.store, loaded)

    @get(
        "/{game_id:str}/stream",
        operation_id="streamEvents",
        summary="Live feed of a game: its events, or the caller's view (SSE or NDJSON)",
        description=(
            "Authenticate with `Authorization` or with `?ticket=` (a single-use stream "
            "ticket from POST /v1/games/{id}/stream-tickets, for a browser's EventSource); "
            "`?token=` is refused (400 `token-in-url`): a token never goes into a URL. "
            "`feed=events` (default): each SSE message is one event record (`id` = version, "
            "`event` = event type, `data` = the EventRecord JSON), redacted for the caller. "
            "`feed=view`: the first message is `view` (the caller's whole GameView), then "
            "after each batch of events an `events` message (`data`: {events: [EventRecord]})"
            " and a `view` message; after the game ends it stays open until a rematch is "
            "made (the view's `rematch`) or 10 minutes pass. With `Accept: "
            "application/x-ndjson` the same messages come as JSON lines, each with `kind` "
            "(event, events, view, ping) and `version`. Resume with `Last-Event-ID` (or "
            "`after`). A ping every 15 s keeps the connection alive. The event feed closes "
            "once the game is over and its result recorded, or once it is abandoned or aborted."
        ),
        media_type="text/event-stream",
    )
    async def stream_events(
        self,
        ctx: Injected[Context],
        game_id: GameId,
        authorization: Authorization = None,
        accept: FeedAccept = None,
        last_event_id: LastEventId = None,
        after: StreamAfter = None,
        feed: StreamFeed = "events",
        ticket: StreamTicketParameter = None,
        token: TokenParameter = None,
    ) -> Stream:
        if token is not None:
            raise TokenInUrl(
                "a seat token or API key never goes into a URL: POST "
                "/v1/games/{id}/stream-tickets with it and pass ?ticket= instead"
            )
        loaded = await ctx.games.load(game_id)
        if ticket is not None:
            caller = await ticket_caller(ctx, ticket, game_id)
        else:
            caller = await _viewer(ctx, loaded, authorization)
        start = int(last_event_id) if last_event_id is not None else after
        ndjson = accept is not None and "application/x-ndjson" in accept.lower()
        if feed == "view":
            return _view_feed(view_messages(ctx, loaded, caller, start), ndjson)
        return _event_feed(live_messages(ctx, loaded, caller, start or 0), ndjson)


def _view_feed(messages: AsyncIterator[Any], ndjson: bool) -> Stream:
    if ndjson:
        return Stream(
            as_ndjson(messages),
            media_type="application/x-ndjson",
            headers={"Cache-Control": "no-store"},
        )
    return ServerSentEvent(as_sse(messages), headers={"Cache-Control": "no-store"})


def _event_feed(events: AsyncIterator[Any], ndjson: bool) -> Stream:
    if ndjson:
        return Stream(
            sse_as_ndjson(events),
            media_type="application/x-ndjson",
            headers={"Cache-Control": "no-store"},
        )
    return ServerSentEvent(events, headers={"Cache-Control": "no-store"})


class GameEndingsController(Controller):
    """Leaving a game: a seat resigns, or the creator aborts the game."""

    path = "/v1/games"
    tags = ["games"]

    @post(
        "/{game_id:str}/resign",
        operation_id="resignSeat",
        summary="Resign the caller's seat: a bot plays it from now on",
        description=(
            "Seat token. A bot (level random, as when a turn deadline passes) plays the seat "
            "from now on: the view shows the seat as `resigned`, the event log has "
            "`seat.resigned`. In a sealed step the seat's unrevealed choice is forfeited "
            "(`seal.forfeited`) and a bot's choice stands in. The token still reads the "
            "seat's view; it may no longer act (403)."
        ),
        status_code=200,
    )
    async def resign(
        self,
        ctx: Injected[Context],
        game_id: GameId,
        authorization: Authorization = None,
        idempotency_key: IdempotencyKey = None,
    ) -> MoveAccepted:
        loaded = await ctx.games.load(game_id)
        seat = await _seat_caller(ctx, loaded, authorization)
        key = seat_idempotency(seat, idempotency_key) if idempotency_key else None
        return await _ending(ctx, game_id, Resign(seat), key, "resign", Caller(seat=seat))

    @post(
        "/{game_id:str}/abort",
        operation_id="abortGame",
        summary="Abort an unfinished game (its creator only)",
        description=(
            "The API key that created the game. The game ends here without a result: status "
            "`aborted`, a `game.aborted` event, no more moves; live feeds end and webhooks "
            "get `game.finished` with `status: aborted`. The replay (with the seed) opens. "
            "409 `game-finished` when the game is already over or aborted."
        ),
        status_code=200,
    )
    async def abort(
        self,
        ctx: Injected[Context],
        game_id: GameId,
        authorization: Authorization = None,
        idempotency_key: IdempotencyKey = None,
    ) -> MoveAccepted:
        key_id = ctx.api_keys.require(authorization, "aborting a game needs its API key")
        loaded = await ctx.games.load(game_id)
        if key_id != loaded.meta.owner:
            raise Forbidden("only the API key that created the game may abort it")
        key = owner_idempotency(idempotency_key) if idempotency_key else None
        return await _ending(ctx, game_id, Abort(), key, "abort", Caller())
