"""Controllers for webhooks: register, list, remove, and list delivery attempts."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Controller, delete, get, post
from litestar.datastructures import State
from litestar.params import Body, PathParameter, QueryParameter

from service import egress
from service.api.v1.games import Authorization
from service.context import Context
from service.errors import ServiceError
from service.webhooks import MAX_WEBHOOKS_PER_KEY, Attempt, EventKind, Webhook, WebhookStore

WebhookId = Annotated[str, PathParameter(description="Webhook id", pattern="^[0-9a-f]{16}$")]


class WebhookNotFound(ServiceError):
    code = "not-found"


class WebhookLimit(ServiceError):
    code = "webhook-limit"


class WebhookTargetRefused(ServiceError):
    code = "webhook-target-refused"


class WebhookUrlInvalid(ServiceError):
    code = "webhook-url-invalid"


class RegisterWebhook(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Where to POST, which event kinds, and optionally only one game's."""

    url: Annotated[str, msgspec.Meta(pattern="^https?://[^\\s]{1,2040}$", max_length=2048)]
    events: Annotated[list[EventKind], msgspec.Meta(min_length=1, max_length=3)]
    game_id: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{24}$")] | None = None


class WebhookInfo(msgspec.Struct, frozen=True):
    id: str
    url: str
    events: list[EventKind]
    game_id: str | None
    created_ms: int


class WebhookCreated(msgspec.Struct, frozen=True):
    """``secret`` signs every delivery (Stakeout-Signature); it is shown only this once."""

    id: str
    url: str
    events: list[EventKind]
    game_id: str | None
    created_ms: int
    secret: str


class WebhookList(msgspec.Struct, frozen=True):
    webhooks: list[WebhookInfo]


class AttemptPage(msgspec.Struct, frozen=True):
    """Newest first; pass ``next_offset`` as ``offset`` until it is null."""

    attempts: list[Attempt]
    next_offset: int | None


def _info(hook: Webhook) -> WebhookInfo:
    return WebhookInfo(hook.id, hook.url, hook.events, hook.game_id, hook.created_ms)


def _owner(ctx: Context, authorization: str | None) -> str:
    return ctx.api_keys.require(authorization, "webhooks belong to an API key")


async def _own(ctx: Context, owner: str, webhook_id: str) -> Webhook:
    hook = await WebhookStore(ctx.store.redis).get(webhook_id)
    if hook is None or hook.owner != owner:
        raise WebhookNotFound(f"no webhook {webhook_id!r} for this API key")
    return hook


class WebhooksController(Controller):
    path = "/v1/webhooks"
    tags = ["webhooks"]

    @post(
        "/",
        operation_id="registerWebhook",
        summary="Register a webhook",
        description=(
            "Deliveries are JSON notifications (seat.awaited, game.finished, result.recorded) "
            "for the API key's games, signed: `Stakeout-Signature: t=<unix>,v1=<hex "
            "HMAC-SHA256(secret, '<t>.<raw body>')>`. Failed deliveries are retried with "
            "backoff; every attempt is listed under /deliveries. Targets must be public "
            "addresses: a URL whose host is, or resolves to, a private, loopback, link-local "
            "or otherwise non-public address is refused (422), and deliveries connect only to "
            "public addresses. Redirects are not followed."
        ),
        status_code=201,
    )
    async def register(
        self,
        state: State,
        data: Annotated[RegisterWebhook, Body()],
        authorization: Authorization = None,
    ) -> WebhookCreated:
        ctx: Context = state.ctx
        owner = _owner(ctx, authorization)
        hooks = WebhookStore(ctx.store.redis)
        if await hooks.count(owner) >= MAX_WEBHOOKS_PER_KEY:
            raise WebhookLimit(f"an API key may have at most {MAX_WEBHOOKS_PER_KEY} webhooks")
        try:
            refusal = await egress.registration_refusal(
                data.url, ctx.settings.webhook_allow_private
            )
        except egress.InvalidTarget as exc:
            raise WebhookUrlInvalid(str(exc)) from None
        if refusal is not None:
            raise WebhookTargetRefused(refusal)
        hook = await hooks.add(owner, data.url, data.events, data.game_id)
        return WebhookCreated(
            hook.id, hook.url, hook.events, hook.game_id, hook.created_ms, hook.secret
        )

    @get("/", operation_id="listWebhooks", summary="The API key's webhooks")
    async def list_webhooks(self, state: State, authorization: Authorization = None) -> WebhookList:
        ctx: Context = state.ctx
        owner = _owner(ctx, authorization)
        return WebhookList([_info(h) for h in await WebhookStore(ctx.store.redis).of(owner)])

    @delete(
        "/{webhook_id:str}",
        operation_id="deleteWebhook",
        summary="Remove a webhook (and its attempt log)",
        status_code=204,
    )
    async def delete_webhook(
        self, state: State, webhook_id: WebhookId, authorization: Authorization = None
    ) -> None:
        ctx: Context = state.ctx
        hook = await _own(ctx, _owner(ctx, authorization), webhook_id)
        await WebhookStore(ctx.store.redis).remove(hook)

    @get(
        "/{webhook_id:str}/deliveries",
        operation_id="listDeliveries",
        summary="Delivery attempts of a webhook, newest first",
    )
    async def list_deliveries(
        self,
        state: State,
        webhook_id: WebhookId,
        authorization: Authorization = None,
        offset: Annotated[int, QueryParameter(ge=0, le=10_000, description="Skip this many")] = 0,
        limit: Annotated[int, QueryParameter(ge=1, le=100, description="Page size")] = 50,
    ) -> AttemptPage:
        ctx: Context = state.ctx
        hook = await _own(ctx, _owner(ctx, authorization), webhook_id)
        rows = await WebhookStore(ctx.store.redis).attempts(hook.id, offset, limit + 1)
        more = len(rows) > limit
        return AttemptPage(rows[:limit], offset + limit if more else None)
