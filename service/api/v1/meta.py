"""Rules of each game, and the probes."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get
from litestar.params import PathParameter

from domain import registry
from service.api.v1.params import Injected
from service.http.route_contract import ANYONE, problems
from service.play.errors import GameNotFound, Unavailable
from service.play.game_service import GameService
from service.store.event_store import EventStore
from service.views.schemas import GameList, Health, RulesDocument, rules_data


class RulesController(Controller):
    path = "/v1/rules"
    tags = ["rules"]

    @get(
        "/",
        operation_id="listGames",
        responses=problems(),
        security=[ANYONE],
        summary="The games this server runs",
    )
    async def list_games(self) -> GameList:
        return GameList(games=registry.names())

    @get(
        "/{game:str}",
        operation_id="getRules",
        responses=problems(404),
        security=[ANYONE],
        summary="Rules data and options of a game",
        description=(
            "Decks, tables, limits and creation options, with their defaults, and the house "
            "rules the game plays by (house_rules) where its rulebook is silent or open."
        ),
    )
    async def get_rules(
        self, game: Annotated[str, PathParameter(description="Game name", max_length=32)]
    ) -> RulesDocument:
        found = registry.get(game)
        if found is None:
            raise GameNotFound(game, kinds=tuple(registry.names()))
        return RulesDocument(
            game=found.name,
            title=found.title,
            min_seats=found.min_seats,
            max_seats=found.max_seats,
            bot_levels=["random", "greedy", "expert"],
            rules=rules_data(found),
            house_rules=found.house_rules(),
        )


class HealthController(Controller):
    tags = ["health"]

    @get(
        "/healthz",
        operation_id="healthz",
        responses=problems(counted=False),
        security=[ANYONE],
        summary="Liveness: the process is up",
    )
    async def healthz(self) -> Health:
        return Health(status="ok")

    @get(
        "/readyz",
        operation_id="readyz",
        responses=problems(503, counted=False),
        security=[ANYONE],
        summary="Readiness: the event store answers and the warm cache agrees with it",
        description=(
            "503 while the event store is unreachable, or while the process reloads its warm"
            " cache after finding the store behind it (a restore, a failover to a lagging"
            " replica); `store_regressions` counts those findings since the process started."
        ),
    )
    async def readyz(self, games: Injected[GameService], store: Injected[EventStore]) -> Health:
        try:
            # One round trip: the versions of the most recently used cached games (a ping
            # when none), so a store that went backwards is found here too.
            if await games.check_cached() is None:
                await store.ping()
            backlog = await store.outbox.lag()
        except Exception as exc:
            raise Unavailable(f"event store unreachable: {type(exc).__name__}") from exc
        if games.reloading:
            raise Unavailable(
                "the event store was found behind this process's cache; reloading the games"
            )
        return Health(
            status="ok",
            store_regressions=games.regressions or None,
            last_store_regression_ms=games.last_regression_ms,
            outbox_lag=sum(shard.lag for shard in backlog),
            outbox_pending=sum(shard.pending for shard in backlog),
        )
