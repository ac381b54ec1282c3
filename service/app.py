"""The composition root: builds the Litestar app from `Settings`.

Nothing connects at import time: the Redis clients are opened in the lifespan.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from litestar import Litestar
from litestar.config.cors import CORSConfig

from service.api.v1.games import GamesController
from service.api.v1.meta import HealthController, RulesController
from service.context import open_context
from service.errors import problem_handler
from service.openapi_doc import openapi_config
from service.settings import Settings


def create_app(settings: Settings | None = None) -> Litestar:
    settings = settings or Settings.from_env()

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        async with open_context(settings) as ctx:
            app.state.ctx = ctx
            yield

    return Litestar(
        route_handlers=[GamesController, RulesController, HealthController],
        lifespan=[lifespan],
        exception_handlers={Exception: problem_handler},
        openapi_config=openapi_config(),
        request_max_body_size=settings.max_body_bytes,
        cors_config=CORSConfig(
            allow_origins=["*"],
            allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "If-Match"],
            expose_headers=["ETag"],
        ),
        debug=False,
    )


def app_factory() -> Litestar:
    """For ASGI servers: ``uvicorn --factory service.app:app_factory``."""
    return create_app()


__all__ = ["app_factory", "create_app"]
