"""Controllers for webhooks: register, list, remove, and list delivery attempts."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, delete, get, post
from litestar.params import Body, PathParameter, QueryParameter

from service.api.v1.params import Authorization, Injected
from service.http.route_contract import API_KEY, problems
from service.notify import egress
from service.notify.errors import WebhookLimit, WebhookNotFound, WebhookTargetRefused
from service.notify.webhooks import MAX_WEBHOOKS_PER_KEY, Webhook, WebhookStore
from service.play.access import ApiKeys
from service.settings import Settings
from service.views.webhook_schemas import (
    AttemptPage,
    RegisterWebhook,
    WebhookCreated,
    WebhookInfo,
    WebhookList,
)

WebhookId = Annotated[str, PathParameter(description="Webhook id", pattern="^[0-9a-f]{16}$")]


def _info(hook: Webhook) -> WebhookInfo:
    return WebhookInfo(hook.id, hook.url, hook.events, hook.game_id, hook.created_ms)


def _owner(api_keys: ApiKeys, authorization: str | None) -> str:
    return api_keys.require(authorization, "webhooks belong to an API key")


async def _own(webhooks: WebhookStore, owner: str, webhook_id: str) -> Webhook:
    hook = await webhooks.get(webhook_id)
    if hook is None or hook.owner != owner:
        raise WebhookNotFound(f"no webhook {webhook_id!r} for this API key")
    return hook


class WebhooksController(Controller):
    path = "/v1/webhooks"
    tags = ["webhooks"]

    @post(
        "/",
        operation_id="registerWebhook",
        responses=problems(401, 409, 413, 415, 422),
        security=[API_KEY],
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
        webhooks: Injected[WebhookStore],
        api_keys: Injected[ApiKeys],
        settings: Injected[Settings],
        data: Annotated[RegisterWebhook, Body()],
        authorization: Authorization = None,
    ) -> WebhookCreated:
        owner = _owner(api_keys, authorization)
        if await webhooks.count(owner) >= MAX_WEBHOOKS_PER_KEY:
            raise WebhookLimit(f"an API key may have at most {MAX_WEBHOOKS_PER_KEY} webhooks")
        refusal = await egress.registration_refusal(data.url, settings.webhook_allow_private)
        if refusal is not None:
            raise WebhookTargetRefused(refusal)
        hook = await webhooks.add(owner, data.url, data.events, data.game_id)
        return WebhookCreated(
            hook.id, hook.url, hook.events, hook.game_id, hook.created_ms, hook.secret
        )

    @get(
        "/",
        operation_id="listWebhooks",
        responses=problems(401),
        security=[API_KEY],
        summary="The API key's webhooks",
    )
    async def list_webhooks(
        self,
        webhooks: Injected[WebhookStore],
        api_keys: Injected[ApiKeys],
        authorization: Authorization = None,
    ) -> WebhookList:
        owner = _owner(api_keys, authorization)
        return WebhookList([_info(h) for h in await webhooks.of(owner)])

    @delete(
        "/{webhook_id:str}",
        operation_id="deleteWebhook",
        responses=problems(401, 404),
        security=[API_KEY],
        summary="Remove a webhook (and its attempt log)",
        status_code=204,
    )
    async def delete_webhook(
        self,
        webhooks: Injected[WebhookStore],
        api_keys: Injected[ApiKeys],
        webhook_id: WebhookId,
        authorization: Authorization = None,
    ) -> None:
        hook = await _own(webhooks, _owner(api_keys, authorization), webhook_id)
        await webhooks.remove(hook)

    @get(
        "/{webhook_id:str}/deliveries",
        operation_id="listDeliveries",
        responses=problems(401, 404),
        security=[API_KEY],
        summary="Delivery attempts of a webhook, newest first",
    )
    async def list_deliveries(
        self,
        webhooks: Injected[WebhookStore],
        api_keys: Injected[ApiKeys],
        webhook_id: WebhookId,
        authorization: Authorization = None,
        offset: Annotated[int, QueryParameter(ge=0, le=10_000, description="Skip this many")] = 0,
        limit: Annotated[int, QueryParameter(ge=1, le=100, description="Page size")] = 50,
    ) -> AttemptPage:
        hook = await _own(webhooks, _owner(api_keys, authorization), webhook_id)
        rows = await webhooks.attempts(hook.id, offset, limit + 1)
        more = len(rows) > limit
        return AttemptPage(rows[:limit], offset + limit if more else None)
