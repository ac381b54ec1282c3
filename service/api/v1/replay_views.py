"""The table at any version of a game that is over: what a replay viewer draws.

A replay holds the events; drawing the table at a version needs the game's state there,
which only the rules can fold. So the server folds the stored events up to that version and
answers the view a seat (or a spectator) had then. Only once the game is over: by then the
replay has made every event public, so no view of the past tells more than the replay does.
"""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get
from litestar.exceptions import NotFoundException
from litestar.params import PathParameter, QueryParameter

from service.api.v1.params import Authorization, GameId, Injected
from service.http.route_contract import ANYONE, API_KEY, SEAT_TOKEN, problems
from service.play.access import Access, Caller
from service.play.errors import UnknownSeat
from service.play.game_service import GameService
from service.play.replays import opened
from service.views.presenter import awaiting_of, game_view
from service.views.schemas import GameView


class ReplayViewsController(Controller):
    path = "/v1/games"
    tags = ["games"]

    @get(
        "/{game_id:str}/replay/{version:int}",
        operation_id="getReplayView",
        responses=problems(401, 403, 404, 409, 422),
        security=[SEAT_TOKEN, API_KEY, ANYONE],
        summary="The view at one version of a game that is over (for replay viewers)",
        description=(
            "The game as it stood just after the event of this version: a spectator's view, "
            "or with `seat` that seat's (its hand and legal moves then). Versions of the "
            "opening batch (the deal, before anyone acted) all show the dealt table. 409 "
            "`game-not-finished` while the game runs; 404 for a version past the last."
        ),
    )
    async def view_at(
        self,
        games: Injected[GameService],
        access: Injected[Access],
        game_id: GameId,
        version: Annotated[
            int, PathParameter(ge=1, le=10**9, description="An event's version (1 = the first)")
        ],
        authorization: Authorization = None,
        seat: Annotated[
            int,
            QueryParameter(
                ge=-1, le=15, description="Whose view: a seat; -1 (the default): a spectator's"
            ),
        ] = -1,
    ) -> GameView:
        loaded = await games.load(game_id)
        await access.viewer(loaded, authorization)  # a private game: its seats and creator only
        opened(loaded)
        if version > loaded.match.version:
            raise NotFoundException(f"the game ended at version {loaded.match.version}")
        if seat >= len(loaded.match.seats):
            raise UnknownSeat(f"the game has seats 0 to {len(loaded.match.seats) - 1}")
        past = await games.at_version(loaded, version)
        caller = Caller(seat=None if seat < 0 else seat)
        return game_view(past, caller, awaiting_of(past, {}), now_ms=past.changed_ms)
