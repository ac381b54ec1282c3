"""The composition root: builds the Litestar app from `Settings`.

Nothing connects at import time: the Redis clients are opened in the lifespan.
"""

from __future__ import annotations

import dataclasses
import gc
import logging
import os
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from litestar import Litestar
from litestar.datastructures import State
from litestar.di import Provide
from litestar.types import ControllerRouterHandler

from service.api.v1.account_feed import AccountFeedController
from service.api.v1.acts import ActsController, GameEndingsController
from service.api.v1.games import GamesController
from service.api.v1.hot_routes import HotRoutes
from service.api.v1.lobby import LobbyController
from service.api.v1.matchmaking import MatchmakingController
from service.api.v1.meta import HealthController, RulesController
from service.api.v1.play import play
from service.api.v1.players import LeaderboardsController, PlayersController
from service.api.v1.replay_views import ReplayViewsController
from service.api.v1.seating import InvitesController, SeatingController
from service.api.v1.stats import StatsController
from service.api.v1.webhooks import WebhooksController
from service.follow_ups.jobs import QUEUES
from service.http.cors import Cors
from service.http.metrics_port import MetricsServer, serve_metrics
from service.http.observability import instrument, metrics
from service.http.openapi import openapi_config
from service.http.problems import problem_handler
from service.http.ratelimit import Callers, RateLimiter, RateLimitMiddleware
from service.http.requests import StrictRequest
from service.http.strictness import check_request, problem_for_not_found
from service.http.web_pages import home, web_router
from service.settings import Settings
from service.store.clients import queue_url
from service.telemetry.logs import configure_logging
from service.telemetry.metrics import QueueCollector
from service.wiring import Wiring, open_wiring


def create_app(settings: Settings | None = None) -> Litestar:
    settings = settings or Settings.from_env()
    # With the limit off (a setting) the middleware is left out: no layer to pass.
    limited = settings.rate_limit_per_minute > 0
    rate_limit = RateLimitMiddleware(settings.trusted_proxies) if limited else None
    app = Litestar(
        route_handlers=_route_handlers(settings),
        lifespan=[_lifespan(settings)],
        # Controllers receive the process's objects as handler parameters, by name.
        dependencies=_dependencies(),
        middleware=[rate_limit] if rate_limit is not None else [],
        exception_handlers={Exception: problem_handler},
        # Bodies decoded strictly into the handler's type; bad bytes are a 400, never a 500.
        request_class=StrictRequest,
        # A body must be JSON (415); unknown /schema/... paths are problems, not HTML.
        before_request=check_request,
        after_request=problem_for_not_found,
        openapi_config=openapi_config(),
        request_max_body_size=settings.max_body_bytes,
        debug=False,
        # Logging is configured once per process (stakeout/cli.py: JSON lines); Litestar's
        # default would replace the root handler with its own plain-text one.
        logging_config=None,
    )
    # The view and the acts a layer answers when it is sure of them (the rest: Litestar);
    # cross-origin requests answered around both (a preflight needs no route); then
    # request ids, access log and HTTP metrics around everything, unmatched routes included.
    # The play sockets count their acts with the same middleware object (service/api/v1/play.py).
    app.state.rate_limit = rate_limit
    handler = app.asgi_handler
    if settings.hot_routes:
        handler = HotRoutes(handler, settings.max_body_bytes, rate_limit, routes=app.routes)
    app.asgi_handler = Cors(handler)
    return instrument(app)


def _route_handlers(settings: Settings) -> list[ControllerRouterHandler]:
    # /metrics stays out of the OpenAPI document (include_in_schema=False), and off the
    # API port when it has its own (STAKEOUT_METRICS_PORT, service/http/metrics_port.py).
    return [
        GamesController,
        ActsController,
        GameEndingsController,
        play,  # the play socket (a WebSocket; described in openapi/asyncapi.yaml)
        ReplayViewsController,
        InvitesController,
        LobbyController,
        AccountFeedController,
        SeatingController,
        WebhooksController,
        StatsController,
        PlayersController,
        LeaderboardsController,
        MatchmakingController,
        RulesController,
        HealthController,
        web_router(),  # the web client at /web/ (service/web/)
        home,  # / and /web: on to /web/
        *([] if settings.metrics_port else [metrics]),
    ]


def _lifespan(settings: Settings) -> Callable[[Litestar], AbstractAsyncContextManager[None]]:
    """Opens the process's clients and helpers for the app's life (`app.state`)."""

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        async with open_wiring(settings) as wiring:
            app.state.wiring = wiring
            # The hot routes' one collaborator (`answers_of`, service/api/v1/answers.py).
            app.state.answers = wiring.answers
            app.state.queue_collector = QueueCollector(
                queue_url(settings), QUEUES, settings.redis_url, settings.redis_cluster
            )
            metrics_server: MetricsServer | None = None
            # One process per pod: it serves its own metrics port. Several (`stakeout run`,
            # multiprocess mode): the supervising process does.
            if settings.metrics_port and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
                metrics_server = serve_metrics(settings, settings.metrics_port)
            if settings.rate_limit_per_minute:
                callers = Callers(wiring.api_keys, wiring.store, wiring.seat_tokens, wiring.games)
                app.state.rate_limiter = RateLimiter(
                    queue_url(settings),
                    settings.rate_limit_per_minute,
                    settings.rate_limit_burst,
                    callers=callers,
                )
            try:
                yield
            finally:
                app.state.queue_collector.close()
                if settings.rate_limit_per_minute:
                    await app.state.rate_limiter.close()
                if metrics_server is not None:
                    metrics_server.shutdown()

    return lifespan


def _dependencies() -> dict[str, Provide]:
    """Each of the process's objects (service/wiring.py) as the handler parameter of its
    name, returned as it is: no construction per request, and no thread hop."""
    return {
        field.name: Provide(_provider(field.name), sync_to_thread=False)
        for field in dataclasses.fields(Wiring)
    }


def _provider(name: str) -> Callable[[State], Any]:
    def provide(state: State) -> Any:
        return getattr(state.wiring, name)

    return provide


def app_factory() -> Litestar:
    """For ASGI servers: ``uvicorn --factory service.app:app_factory`` (JSON logs too, as
    `stakeout serve` has them, unless logging was configured already)."""
    return for_serving(app_from_env())


def app_from_env() -> Litestar:
    """The app of the environment's settings, with JSON logs unless logging was configured
    already; `app_factory` without the serving process's collector settings."""
    settings = Settings.from_env()
    if not logging.getLogger().handlers:
        configure_logging(settings.log_level, settings.log_format)
    return create_app(settings)


# Young-generation collections: at most one per this many container objects allocated
# (and not yet freed) instead of CPython's 700. See `for_serving`.
YOUNG_GC_THRESHOLD = 10_000


def for_serving(app: Litestar) -> Litestar:
    """The app as an API process serves it, with the garbage collector set for a server:

    - What the imports and the app's construction made (about 90,000 objects that live as
      long as the process) is moved out of the collector's generations (`gc.freeze`).
      Without it every full collection walks all of them: under load one came every second
      or two and took 40-60 ms, a pause of every request in flight.
    - Young collections at most once per `YOUNG_GC_THRESHOLD` new objects: with the
      default 700 a request's own short-lived objects set one off every few requests, and
      they were about 5 % of an act's CPU in one process; the objects still alive are
      the same few in-flight requests' either way (docs/design-move-path.md,
      "The interpreter and the garbage collector").

    Not done by `create_app`: a test process builds many apps and should not keep their
    objects."""
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_GC_THRESHOLD, older, oldest)
    return app


__all__ = ["app_factory", "app_from_env", "create_app", "for_serving"]
