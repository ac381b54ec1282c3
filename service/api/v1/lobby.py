"""The public lobby: public games waiting for players, and public games in play to watch."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get
from litestar.params import QueryParameter

from service.api.v1.params import Injected, PageCursor, PageLimit
from service.http.route_contract import ANYONE, problems
from service.lobby.public_lobby import PublicLobby
from service.play.game_service import GameService
from service.views.lobby_schemas import LobbyPage
from service.views.presenter import summary_of
from service.views.schemas import GameName


class LobbyController(Controller):
    path = "/v1/lobby"
    tags = ["lobby"]

    @get(
        "/",
        operation_id="getLobby",
        responses=problems(),
        security=[ANYONE],
        summary="Public games: waiting for players, or in play to watch",
        description=(
            "No authentication. Games created with `public: true` that have not ended, newest "
            "first, without tokens (private games are never listed). `state=waiting`: games "
            "with an open seat (claim it with its invite, which the creator passes on); "
            "`state=playing`: games under way, to watch (GET /v1/games/{id}, or the stream "
            "with a spectator's ticket). Cursor pagination: pass `next_cursor` back as "
            "`cursor` until it is null."
        ),
    )
    async def get_lobby(
        self,
        lobby: Injected[PublicLobby],
        games: Injected[GameService],
        game: Annotated[
            GameName | None, QueryParameter(required=False, description="Only this game")
        ] = None,
        lobby_state: Annotated[
            str | None,
            QueryParameter(
                name="state",
                required=False,
                pattern="^(waiting|playing)$",
                description="waiting: with an open seat; playing: under way",
            ),
        ] = None,
        cursor: PageCursor = None,
        limit: PageLimit = 20,
    ) -> LobbyPage:
        before: tuple[int, str] | None = None
        if cursor is not None:
            created_text, _, last_id = cursor.partition("-")
            before = (int(created_text), last_id)
        entries, after = await lobby.page(games, game, lobby_state, before, limit)
        return LobbyPage(
            games=[summary_of(e.loaded, e.created_ms) for e in entries],
            next_cursor=f"{after[0]}-{after[1]}" if after is not None else None,
        )
