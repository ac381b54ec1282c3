"""Controllers for games: create, list, read (the view, the event log, the replay), and
the live feed. The acts are in service/api/v1/acts.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, get, post
from litestar.params import Body, QueryParameter
from litestar.response import Response, ServerSentEvent, ServerSentEventMessage, Stream
from litestar.response.base import ASGIResponse

from domain.errors import InvalidOptions
from domain.match import SeatSpec
from domain.verify import ReplayDocument
from service.api.v1.answers import answers_of
from service.api.v1.hot_routes import hot
from service.api.v1.ndjson import NdjsonStream, wants_ndjson
from service.api.v1.params import (
    Authorization,
    FeedAccept,
    GameId,
    IfNoneMatch,
    Injected,
    LastEventId,
    PageCursor,
    PageLimit,
    StreamAfter,
    StreamFeed,
    StreamTicketParameter,
)
from service.api.v1.responses import declared, json_answer, unchanged
from service.http.route_contract import ANYONE, API_KEY, SEAT_TOKEN, conditional, problems
from service.http.strictness import not_modified_response
from service.live.access import ticket_caller
from service.live.errors import TokenInUrl
from service.live.game_feeds import FeedMessage, GameFeeds, as_ndjson, as_sse, sse_as_ndjson
from service.live.tickets import TicketStore
from service.lobby import invites
from service.lobby.game_maker import GameMaker, Made
from service.play.access import Access
from service.play.game_service import GameService, NewGame
from service.play.identities import check_external_id, check_seats
from service.play.replays import opened, replay_document
from service.seats.answers import Answers, Poll
from service.store.event_store import EventStore
from service.views.creation_schemas import (
    BotSeat,
    CreateGame,
    GameCreatedResponse,
    Invite,
    OpenSeat,
    SeatGrant,
)
from service.views.game_list import GameFilter, GameList, parse_cursor
from service.views.presenter import event_records
from service.views.schemas import EventPage, GameName, GamePage, GameStatus, GameView
from service.views.versions import etag, not_modified

# The longest a view read may wait for a new version (`?after_version=N&wait=S`).
MAX_WAIT_SECONDS = 30


def _seat_specs(data: CreateGame) -> list[SeatSpec]:
    return [
        SeatSpec("bot", s.level, s.name)
        if isinstance(s, BotSeat)
        else SeatSpec("open" if isinstance(s, OpenSeat) else "human", None, s.name, s.external_id)
        for s in data.seats
    ]


def _creation_answer(made: Made, game: str, seats: list[SeatSpec]) -> GameCreatedResponse:
    created, codes = made.created, made.invite_codes
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


async def seat_view(
    answers: Answers, game_id: str, authorization: str | None = None
) -> ASGIResponse:
    """The caller's view of a game, answered at once: the plain read of `get_game`, and what
    the hot-route layer calls for it (service/api/v1/hot_routes.py)."""
    return json_answer(*await answers.view_of(game_id, authorization))


class GamesController(Controller):
    path = "/v1/games"
    tags = ["games"]

    @post(
        "/",
        operation_id="createGame",
        responses=problems(401, 409, 413, 415, 422),
        security=[API_KEY],
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
        access: Injected[Access],
        maker: Injected[GameMaker],
        data: Annotated[CreateGame, Body()],
        authorization: Authorization = None,
    ) -> GameCreatedResponse:
        key_id = access.api_key(authorization, "creating a game needs an API key")
        game = str(type(data).__struct_config__.tag)
        if data.public and data.private:
            raise InvalidOptions("a game is public (in the lobby) or private, not both")
        if data.clock is not None and data.turn_seconds is not None:
            raise InvalidOptions("a game has a clock or turn_seconds, not both")
        # A clocked game's time-out is accepted only once the bank is empty by the log's own
        # times (domain/match/forfeits.py), so an away seat's turn could not be played as
        # one: with a clock the bank alone decides when a bot plays.
        if data.clock is not None and data.away_seconds is not None:
            raise InvalidOptions(
                "a game has a clock or away_seconds, not both: with a clock, its time bank "
                "decides when a bot plays"
            )
        seats = _seat_specs(data)
        check_seats(seats)
        new = NewGame(
            key_id,
            game,
            msgspec.to_builtins(data.options),
            seats,
            private=data.private,
            turn_seconds=data.turn_seconds,
            away_seconds=data.away_seconds,
            public=data.public,
            clock=data.clock,
        )
        return _creation_answer(await maker.make(new), game, seats)

    @get(
        "/",
        operation_id="listMyGames",
        responses=problems(401, 422),
        security=[API_KEY],
        summary="The calling API key's games",
        description=(
            "Newest first, filtered by status, game and a seat's external_id; cursor "
            "pagination: pass "
            "`next_cursor` back as `cursor` until it is null."
        ),
    )
    async def list_games(  # noqa: PLR0913 - HTTP parameters and collaborators
        self,
        access: Injected[Access],
        game_list: Injected[GameList],
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
        owner = access.api_key(authorization, "listing games needs an API key")
        check_external_id(external_id)
        wanted = GameFilter(status, game, external_id)
        return await game_list.page(owner, parse_cursor(cursor), limit, wanted)

    @get(
        "/{game_id:str}",
        operation_id="getGame",
        opt=hot(seat_view),
        responses=declared(GameView) | problems(401, 403, 404) | conditional(),
        security=[SEAT_TOKEN, API_KEY, ANYONE],
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
        request: Request[Any, Any, Any],
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
    ) -> ASGIResponse:
        answers = answers_of(request)
        if not wait and if_none_match is None:  # a plain read: the common case
            return await seat_view(answers, game_id, authorization)
        poll = Poll(after_version, wait, if_none_match)
        view, headers, version = await answers.view_polled(game_id, authorization, poll)
        return unchanged(version) if view is None else json_answer(view, headers)

    @get(
        "/{game_id:str}/events",
        operation_id="listEvents",
        responses=problems(401, 403, 404) | conditional(),
        security=[SEAT_TOKEN, API_KEY, ANYONE],
        summary="The event log, as the caller may see it",
        description="Events with version > after, oldest first; follow next_after to page.",
    )
    async def list_events(
        self,
        games: Injected[GameService],
        access: Injected[Access],
        game_id: GameId,
        authorization: Authorization = None,
        after: Annotated[
            int, QueryParameter(ge=0, le=10**9, description="Return events after this version")
        ] = 0,
        limit: Annotated[int, QueryParameter(ge=1, le=500, description="Page size")] = 100,
        if_none_match: IfNoneMatch = None,
    ) -> Response[EventPage]:
        loaded = await games.snapshot(game_id)
        events = await games.events_after(loaded, after, limit + 1)
        caller = await access.viewer(loaded, authorization)
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
        responses=problems(401, 403, 404, 409),
        security=[SEAT_TOKEN, API_KEY, ANYONE],
        summary="The full replay of a finished game, with its seed",
        description=(
            "Every event unredacted, the act behind each batch of events, and the shuffle "
            "seed, so anyone can check the seed against seed_commitment and re-run the game "
            "(`stakeout verify REPLAY.json`). 409 while the game is running."
        ),
    )
    async def get_replay(
        self,
        games: Injected[GameService],
        access: Injected[Access],
        store: Injected[EventStore],
        game_id: GameId,
        authorization: Authorization = None,
    ) -> ReplayDocument:
        loaded = await games.load(game_id)
        await access.viewer(loaded, authorization)
        return await replay_document(store, opened(loaded))

    @get(
        "/{game_id:str}/stream",
        operation_id="streamEvents",
        responses=problems(401, 403, 404),
        security=[SEAT_TOKEN, API_KEY, ANYONE],
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
            "(event, events, view, ping, presence) and `version`. Both feeds send a "
            "`presence` message (SSE `event: presence`, no `id`; data: {seats: [{seat, "
            "presence, substituted}]}) when a seat's presence changes. Resume with "
            "`Last-Event-ID` (or "
            "`after`). A ping every 15 s keeps the connection alive. The event feed closes "
            "once the game is over and its result recorded, or once it is abandoned or aborted."
        ),
        media_type="text/event-stream",
    )
    async def stream_events(  # noqa: PLR0913 - HTTP parameters and collaborators
        self,
        request: Request[Any, Any, Any],
        games: Injected[GameService],
        access: Injected[Access],
        tickets: Injected[TicketStore],
        feeds: Injected[GameFeeds],
        game_id: GameId,
        authorization: Authorization = None,
        accept: FeedAccept = None,
        last_event_id: LastEventId = None,
        after: StreamAfter = None,
        feed: StreamFeed = "events",
        ticket: StreamTicketParameter = None,
    ) -> Stream:
        # Not a declared parameter (nothing accepts it), refused all the same.
        if "token" in request.query_params:
            raise TokenInUrl(
                "a seat token or API key never goes into a URL: POST "
                "/v1/games/{id}/stream-tickets with it and pass ?ticket= instead"
            )
        loaded = await games.load(game_id)
        if ticket is not None:
            caller = await ticket_caller(tickets, ticket, game_id)
        else:
            caller = await access.viewer(loaded, authorization)
        start = int(last_event_id) if last_event_id is not None else after
        if start is not None:
            start = max(start, 0)
        ndjson = wants_ndjson(accept)
        if feed == "view":
            return _view_feed(feeds.views(loaded, caller, start), ndjson)
        return _event_feed(feeds.events(loaded, caller, start or 0), ndjson)


def _view_feed(messages: AsyncIterator[Any], ndjson: bool) -> Stream:
    if ndjson:
        return NdjsonStream(as_ndjson(messages), headers={"Cache-Control": "no-store"})
    return ServerSentEvent(_sse(as_sse(messages)), headers={"Cache-Control": "no-store"})


def _event_feed(events: AsyncIterator[Any], ndjson: bool) -> Stream:
    if ndjson:
        return NdjsonStream(sse_as_ndjson(events), headers={"Cache-Control": "no-store"})
    return ServerSentEvent(_sse(events), headers={"Cache-Control": "no-store"})


async def _sse(messages: AsyncIterator[FeedMessage]) -> AsyncIterator[ServerSentEventMessage]:
    """The live feed's messages as Litestar sends Server-Sent Events."""
    async for message in messages:
        yield ServerSentEventMessage(
            data=message.data, event=message.event, id=message.id, comment=message.comment
        )
