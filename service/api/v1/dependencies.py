"""What the controllers are handed, by Litestar's dependency injection.

Each dependency is an app-scoped object opened in the lifespan (`service.wiring`),
returned as it is: no construction per request, and no thread hop (``sync_to_thread=False``),
since the act and view routes are the hot path. A handler names one by its parameter name,
typed ``Injected[...]``: ``ctx`` (the whole wiring, for handlers that use several parts),
``games``, ``store``, ``api_keys``, ``settings``, ``webhooks``, ``stats``, ``account_feed``,
``invites``. Other stores are reached through ``ctx`` (``ctx.deadlines``, ``ctx.tickets``, ...).
Dependencies are not request parameters: they never appear in the OpenAPI document.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Annotated, Any, TypeVar

from litestar.datastructures import State
from litestar.di import Provide
from litestar.params import SkipValidationMarker

from service.wiring import Context

# A handler parameter of an injected object: ``ctx: Injected[Context]``. Not validated: it
# is the app's own object (and checking it per request would cost more than the handler).
T = TypeVar("T")
Injected = Annotated[T, SkipValidationMarker()]


def _context(state: State) -> Context:
    ctx: Context = state.ctx
    return ctx


def _part(name: str) -> Any:
    """A provider of one part of the context, by its attribute name."""
    if name not in {f.name for f in fields(Context)}:
        raise AttributeError(f"the context has no part {name!r}")

    def part(state: State) -> Any:
        return getattr(_context(state), name)

    return part


def _provide(get: Any) -> Provide:
    return Provide(get, sync_to_thread=False)


# The context's parts a handler may name directly (each is ``Context.<name>``).
_PARTS = ("games", "store", "api_keys", "settings", "webhooks", "stats", "account_feed", "invites")

DEPENDENCIES: dict[str, Provide] = {
    "ctx": _provide(_context),
    **{name: _provide(_part(name)) for name in _PARTS},
}
