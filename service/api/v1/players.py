"""Players of the API key's games: a player's ratings, its games, and the leaderboards
(service/players/). Everything is the calling API key's own: another key's players,
ratings and games are never seen."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get
from litestar.params import PathParameter, QueryParameter

from domain import registry
from service.api.v1.params import Authorization, Injected, PageCursor, PageLimit
from service.http.route_contract import API_KEY, problems
from service.play.access import Access
from service.play.errors import InvalidRequest
from service.play.identities import check_external_id
from service.players.errors import UnknownPlayer
from service.players.rating_store import RatingStore
from service.players.ratings import player_identity
from service.views.game_list import GameFilter, GameList, parse_cursor
from service.views.player_schemas import (
    LeaderboardPage,
    PlayerProfile,
    leaderboard_entry,
    rating_info,
)
from service.views.schemas import GameName, GamePage, GameStatus

PlayerId = Annotated[
    str,
    PathParameter(
        min_length=1,
        max_length=200,
        description="The player: the external_id its seats carry (your backend's user id; "
        "percent-encoded, and never holding a `/`: an encoded one, %2F, is 404)",
    ),
]
RankCursor = Annotated[
    str | None,
    QueryParameter(
        required=False,
        pattern="^[0-9]{1,9}$",
        description="From the previous page's next_cursor",
    ),
]


class PlayersController(Controller):
    path = "/v1/players"
    tags = ["players"]

    @get(
        "/{external_id:str}",
        operation_id="getPlayer",
        responses=problems(401, 404, 422),
        security=[API_KEY],
        summary="A player's ratings and results, per game kind",
        description=(
            "Needs an API key; the player is an external_id of that key's games. One "
            "rating per game kind the player has a rated game in (ratings: openskill's "
            "Weng–Lin Plackett–Luce, from each finished game's places; aborted and abandoned "
            "games are not rated; see RatingInfo). A player without a rated game has an "
            "empty list."
        ),
    )
    async def get_player(
        self,
        access: Injected[Access],
        ratings: Injected[RatingStore],
        external_id: PlayerId,
        authorization: Authorization = None,
    ) -> PlayerProfile:
        owner = access.api_key(authorization, "players belong to an API key")
        check_external_id(external_id)
        identity = player_identity(external_id)
        found = []
        latest: tuple[int, str | None] = (-1, None)
        for game in registry.names():
            rated = await ratings.rating(owner, game, identity)
            if rated is None:
                continue
            rating, rank = rated
            found.append(rating_info(game, rating, rank))
            latest = max(latest, (rating.last_ms, rating.name), key=lambda x: x[0])
        return PlayerProfile(external_id=external_id, name=latest[1], ratings=found)

    @get(
        "/{external_id:str}/games",
        operation_id="listPlayerGames",
        responses=problems(401, 404, 422),
        security=[API_KEY],
        summary="A player's games, newest first",
        description=(
            "Needs an API key. The key's games with a seat of this external_id (at "
            "creation, or claimed by invite), newest first, filtered by game and status; "
            "cursor pagination: pass `next_cursor` back as `cursor` until it is null (a "
            "short page with a cursor means: keep going)."
        ),
    )
    async def list_player_games(  # noqa: PLR0913 - HTTP parameters and collaborators
        self,
        access: Injected[Access],
        game_list: Injected[GameList],
        external_id: PlayerId,
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
    ) -> GamePage:
        owner = access.api_key(authorization, "players belong to an API key")
        check_external_id(external_id)
        wanted = GameFilter(status, game, external_id)
        return await game_list.player_page(owner, parse_cursor(cursor), limit, wanted)


class LeaderboardsController(Controller):
    path = "/v1/leaderboards"
    tags = ["players"]

    @get(
        "/{game:str}",
        operation_id="getLeaderboard",
        responses=problems(401, 404, 422),
        security=[API_KEY],
        summary="A game kind's leaderboard",
        description=(
            "Needs an API key: its players and bot levels in this game kind, highest rating "
            "first (ties: in an order that stays put). Cursor pagination: pass `next_cursor` "
            "back as `cursor`. `around=<external_id>`: the page of `limit` entries centred "
            "on that player (404 `unknown-player` when it has no rating here); it takes no "
            "cursor (400 `invalid-request` when both are sent)."
        ),
    )
    async def get_leaderboard(
        self,
        access: Injected[Access],
        ratings: Injected[RatingStore],
        game: Annotated[GameName, PathParameter(description="The game kind")],
        authorization: Authorization = None,
        cursor: RankCursor = None,
        limit: PageLimit = 20,
        around: Annotated[
            str | None,
            QueryParameter(
                required=False,
                min_length=1,
                max_length=200,
                description="The external_id of a player to centre the page on",
            ),
        ] = None,
    ) -> LeaderboardPage:
        owner = access.api_key(authorization, "leaderboards belong to an API key")
        if around is not None and cursor is not None:
            raise InvalidRequest("around= names its own page: send it without a cursor")
        start = int(cursor) if cursor is not None else 0
        if around is not None:
            check_external_id(around, "around")
            rank = await ratings.rank_of(owner, game, player_identity(around))
            if rank is None:
                raise UnknownPlayer(f"{around!r} has no rating in {game}")
            start = max(0, rank - 1 - limit // 2)
        total = await ratings.size(owner, game)
        entries = [leaderboard_entry(r) for r in await ratings.board(owner, game, start, limit)]
        more = start + limit < total
        return LeaderboardPage(
            game=game,
            total=total,
            entries=entries,
            next_cursor=str(start + limit) if more else None,
        )
