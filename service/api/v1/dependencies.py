"""What the controllers are handed, by Litestar's dependency injection.

Each dependency is an app-scoped object opened in the lifespan (`service.context`),
returned as it is: no construction per request, and no thread hop (``sync_to_thread=False``),
since the act and view routes are the hot path. A handler names one by its parameter name,
typed ``Injected[...]``: ``ctx`` (the whole wiring, for handlers that use several parts),
``games``, ``store``, ``api_keys``, ``settings``, ``webhooks``, ``stats``, ``account_feed``,
``invites``. Other stores are reached through ``ctx`` (``ctx.deadlines``, ``ctx.tickets``, ...).
Dependencies are not request parameters: they never appear in the OpenAPI document.
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from litestar.datastructures import State
from litestar.di import Provide
from litestar.params import SkipValidationMarker

from service.account_feed import AccountFeed
from service.auth import ApiKeys
from service.context import Context
from service.games import GameService
from service.invites import InviteStore
from service.settings import Settings
from service.stats import StatsStore
from service.store import EventStore
from service.webhooks import WebhookStore

# A handler parameter of an injected object: ``ctx: Injected[Context]``. Not validated: it
# is the app's own object (and checking it per request would cost more than the handler).
T = TypeVar("T")
Injected = Annotated[T, SkipValidationMarker()]


def _context(state: State) -> Context:
    ctx: Context = state.ctx
    return ctx


def _games(state: State) -> GameService:
    return _context(state).games


def _store(state: State) -> EventStore:
    return _context(state).store


def _api_keys(state: State) -> ApiKeys:
    return _context(state).api_keys


def _settings(state: State) -> Settings:
    return _context(state).settings


def _webhooks(state: State) -> WebhookStore:
    return _context(state).webhooks


def _stats(state: State) -> StatsStore:
    return _context(state).stats


def _account_feed(state: State) -> AccountFeed:
    return _context(state).account_feed


def _invites(state: State) -> InviteStore:
    return _context(state).invites


def _provide(get: Any) -> Provide:
    return Provide(get, sync_to_thread=False)


DEPENDENCIES: dict[str, Provide] = {
    "ctx": _provide(_context),
    "games": _provide(_games),
    "store": _provide(_store),
    "api_keys": _provide(_api_keys),
    "settings": _provide(_settings),
    "webhooks": _provide(_webhooks),
    "stats": _provide(_stats),
    "account_feed": _provide(_account_feed),
    "invites": _provide(_invites),
}
