"""The composition root: builds the Litestar app from `Settings`.

Nothing connects at import time: the Redis clients are opened in the lifespan.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from litestar import Litestar
from litestar.config.cors import CORSConfig

from service.api.v1.games import GameEndingsController, GamesController
from service.api.v1.meta import HealthController, RulesController
from service.api.v1.stats import StatsController
from service.api.v1.webhooks import WebhooksController
from service.context import open_context, queue_url
from service.errors import problem_handler
from service.observability import QueueCollector, instrument, metrics
from service.openapi_doc import openapi_config
from service.ratelimit import RateLimiter, RateLimitMiddleware
from service.requests import StrictRequest
from service.scheduling import QUEUES
from service.settings import Settings
from service.strictness import check_request, problem_for_not_found


def create_app(settings: Settings | None = None) -> Litestar:
    settings = settings or Settings.from_env()

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        async with open_context(settings) as ctx:
            app.state.ctx = ctx
            app.state.queue_collector = QueueCollector(queue_url(settings), QUEUES)
            if settings.rate_limit_per_minute:
                app.state.rate_limiter = RateLimiter(
                    queue_url(settings), settings.rate_limit_per_minute
                )
            try:
                yield
            finally:
                app.state.queue_collector.close()

    app = Litestar(
        # /metrics stays out of the OpenAPI document (include_in_schema=False).
        route_handlers=[
            GamesController,
            GameEndingsController,
            WebhooksController,
            StatsController,
            RulesController,
            HealthController,
            metrics,
        ],
        lifespan=[lifespan],
        middleware=[RateLimitMiddleware()],
        exception_handlers={Exception: problem_handler},
        # Bodies decoded strictly into the handler's type; bad bytes are a 400, never a 500.
        request_class=StrictRequest,
        # A body must be JSON (415); unknown /schema/... paths are problems, not HTML.
        before_request=check_request,
        after_request=problem_for_not_found,
        openapi_config=openapi_config(),
        request_max_body_size=settings.max_body_bytes,
        cors_config=CORSConfig(
            allow_origins=["*"],
            allow_headers=[
                "Authorization",
                "Content-Type",
                "Idempotency-Key",
                "If-Match",
                "X-Request-ID",
            ],
            expose_headers=["ETag", "Retry-After", "X-Request-ID"],
        ),
        debug=False,
        # Logging is configured once per process (service/cli.py: JSON lines); Litestar's
        # default would replace the root handler with its own plain-text one.
        logging_config=None,
    )
    # Request ids, access log and HTTP metrics around everything, unmatched routes included.
    return instrument(app)


def app_factory() -> Litestar:
    """For ASGI servers: ``uvicorn --factory service.app:app_factory``."""
    return create_app()


__all__ = ["app_factory", "create_app"]
