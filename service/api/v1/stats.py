"""The calling API key's results, counted once per finished game (service/play/stats.py)."""

from __future__ import annotations

from litestar import Controller, get

from service.api.v1.params import Authorization, Injected
from service.http.route_contract import API_KEY, problems
from service.play.access import ApiKeys
from service.play.stats import Stats, StatsStore


class StatsController(Controller):
    path = "/v1/stats"
    tags = ["games"]

    @get(
        "/",
        operation_id="getStats",
        responses=problems(401),
        security=[API_KEY],
        summary="The API key's results",
        description=(
            "Per game kind: finished games, and for each kind of seat (`human`, or the bot "
            "level) the seats played and the seats among the winners (a shared win counts for "
            "each winner). A game counts once its result is recorded."
        ),
    )
    async def get_stats(
        self,
        stats: Injected[StatsStore],
        api_keys: Injected[ApiKeys],
        authorization: Authorization = None,
    ) -> Stats:
        owner = api_keys.require(authorization, "statistics belong to an API key")
        return await stats.of(owner)
