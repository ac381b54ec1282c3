"""Webhooks: an API key's backend learns about its games without polling.

A webhook has a URL, the event kinds it wants, and optionally one game. Deliveries are
queued on the queue Redis (service/notify/delivery_queue.py) and made by workers of their
own (``stakeout worker --queues webhooks``: service/notify/deliverer.py), so a slow,
unreachable or hostile receiver never delays a bot turn, a deadline or a scoring job; each
attempt is recorded; failures are retried with backoff. Deliveries are at least once:
receivers de-duplicate on ``Stakeout-Delivery``, the notification's id.

One attempt has one overall deadline (``STAKEOUT_WEBHOOK_TIMEOUT_SECONDS``): resolving,
connecting, sending and reading the status line and headers together, so a receiver that
trickles a byte at a time cannot hold a worker past it. Of the response only the status
is used; at most ``KEPT_BODY_BYTES`` of its body are read (a failure's into the attempt
log).

Signature (documented in docs/api-guide.md, "Webhooks", with a verification recipe)::

    Stakeout-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>

A receiver recomputes the HMAC over the timestamp and the raw body with the webhook's
secret (shown once, at registration), compares in constant time, and rejects old
timestamps (we suggest five minutes) to stop replays.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import secrets
import time
from collections.abc import Collection, Sequence
from typing import Annotated, Literal

import msgspec

from domain.descriptions import GAME_ID
from domain.engine import doc
from service.notify import delivery_client
from service.notify.errors import WebhookUrlInvalid
from service.store.clients import AnyRedis
from service.store.keys import owner_webhooks_key, webhook_attempts_key, webhook_key

EventKind = Literal[
    "seat.awaited",
    "game.finished",
    "result.recorded",
    "game.started",
    "game.aborted",
    "rematch.created",
    "match.found",
]
EVENT_KINDS: tuple[EventKind, ...] = (
    "seat.awaited",
    "game.finished",
    "result.recorded",
    "game.started",
    "game.aborted",
    "rematch.created",
    "match.found",
)
SIGNATURE_HEADER = "Stakeout-Signature"
MAX_WEBHOOKS_PER_KEY = 20
KEPT_ATTEMPTS = 500
KEPT_BODY_BYTES = 256


class Webhook(msgspec.Struct, frozen=True):
    id: str
    owner: str
    url: str
    events: list[EventKind]
    game_id: str | None
    secret: str
    created_ms: int


class NotifiedSeat(msgspec.Struct, frozen=True):
    """A seat as notifications show it: who plays it, never its token."""

    seat: int
    type: str
    name: str | None = None
    external_id: str | None = None


class NotifiedPresence(msgspec.Struct, frozen=True):
    """seat.awaited: whether the awaited seat's player is at the table (its status:
    online, away or never; when it was last seen)."""

    status: str
    last_seen_ms: int | None = None


class Notification(msgspec.Struct, frozen=True):
    """The JSON body of a delivery."""

    id: str
    kind: EventKind
    game_id: str
    version: int
    at_ms: int
    seat: int | None = None
    action: str | None = None
    step: str | None = None
    deadline: int | None = None
    # seat.awaited in a game with a clock: the seat's bank (ms) at at_ms.
    clock_remaining_ms: int | None = None
    scores: list[int] | None = None
    winners: list[int] | None = None
    # game.finished: "finished" (played to the end), "abandoned" (nobody acted for long) or
    # "aborted" (ended by its creator).
    status: Literal["finished", "abandoned", "aborted"] | None = None
    # Who sits where (name and external id, never a token); rematch.created: the new game.
    seats: list[NotifiedSeat] | None = None
    rematch_game_id: str | None = None
    # match.found: the matchmaking ticket that was given ``seat`` of the new game.
    ticket_id: str | None = None
    # seat.awaited: the awaited seat's presence (None: presence off).
    presence: NotifiedPresence | None = None


class Attempt(msgspec.Struct, frozen=True):
    """One delivery attempt of a notification."""

    delivery_id: Annotated[str, doc("The notification's id (the same across retries).")]
    kind: Annotated[EventKind, doc("The notification kind.")]
    game_id: Annotated[str, doc(GAME_ID)]
    attempt: Annotated[int, doc("1 for the first attempt, then 2, 3, … for retries.")]
    at_ms: Annotated[int, doc("When it was made (epoch milliseconds).")]
    duration_ms: Annotated[int, doc("How long it took (milliseconds).")]
    status_code: Annotated[int | None, doc("The receiver's HTTP status, null when none came.")]
    error: Annotated[
        str | None, doc("Why it failed (no answer, refused address, …), null on success.")
    ]
    delivered: Annotated[bool, doc("True when the receiver answered 2xx.")]


def sign(secret: str, timestamp: int, body: bytes) -> str:
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def verify_signature(
    secret: str, header: str, body: bytes, now: float | None = None, tolerance: int = 300
) -> bool:
    """The receiver's check (the recipe in docs/api-guide.md does the same)."""
    try:
        parts = dict(item.split("=", 1) for item in header.split(","))
        timestamp = int(parts["t"])
        given = parts["v1"]
    except (KeyError, ValueError):
        return False
    if abs((time.time() if now is None else now) - timestamp) > tolerance:
        return False
    expected = sign(secret, timestamp, body).split("v1=", 1)[1]
    return hmac.compare_digest(expected, given)


class WebhookStore:
    def __init__(self, redis: AnyRedis) -> None:
        self.redis = redis

    async def add(
        self, owner: str, url: str, events: list[EventKind], game_id: str | None
    ) -> Webhook:
        webhook = Webhook(
            id=secrets.token_hex(8),
            owner=owner,
            url=url,
            events=sorted(set(events)),
            game_id=game_id,
            secret="whsec_" + secrets.token_urlsafe(32),
            created_ms=int(time.time() * 1000),
        )
        await self.redis.set(webhook_key(webhook.id), msgspec.json.encode(webhook))
        await self.redis.zadd(owner_webhooks_key(owner), {webhook.id: webhook.created_ms})
        return webhook

    async def count(self, owner: str) -> int:
        return int(await self.redis.zcard(owner_webhooks_key(owner)))

    async def get(self, webhook_id: str) -> Webhook | None:
        raw = await self.redis.get(webhook_key(webhook_id))
        return None if raw is None else msgspec.json.decode(raw, type=Webhook)

    async def of(self, owner: str) -> list[Webhook]:
        ids: list[bytes] = await self.redis.zrange(owner_webhooks_key(owner), 0, -1)  # type: ignore[assignment]
        found = [await self.get(i.decode()) for i in ids]
        return [w for w in found if w is not None]

    async def remove(self, webhook: Webhook) -> None:
        await self.redis.delete(webhook_key(webhook.id), webhook_attempts_key(webhook.id))
        await self.redis.zrem(owner_webhooks_key(webhook.owner), webhook.id)

    async def get_many(self, webhook_ids: Collection[str]) -> dict[str, Webhook | None]:
        """Each webhook by its id (None: removed), in one pipelined round trip."""
        ids = list(webhook_ids)
        pipe = self.redis.pipeline(transaction=False)
        for webhook_id in ids:
            pipe.get(webhook_key(webhook_id))
        raws = await pipe.execute()
        return {
            i: None if raw is None else msgspec.json.decode(raw, type=Webhook)
            for i, raw in zip(ids, raws, strict=True)
        }

    async def record_attempt(self, webhook_id: str, attempt: Attempt) -> None:
        """Log a delivery attempt, newest first (the last `KEPT_ATTEMPTS` are kept)."""
        await self.record_attempts([(webhook_id, attempt)])

    async def record_attempts(self, attempts: Sequence[tuple[str, Attempt]]) -> None:
        """Log delivery attempts (in the order made) of any webhooks, in one round trip."""
        by_hook: dict[str, list[bytes]] = {}
        for webhook_id, attempt in attempts:
            by_hook.setdefault(webhook_id, []).append(msgspec.json.encode(attempt))
        if not by_hook:
            return
        pipe = self.redis.pipeline(transaction=False)
        for webhook_id, encoded in by_hook.items():
            key = webhook_attempts_key(webhook_id)
            pipe.lpush(key, *encoded)  # each to the head in turn: the last one made first
            pipe.ltrim(key, 0, KEPT_ATTEMPTS - 1)
        await pipe.execute()

    async def attempts(self, webhook_id: str, offset: int, count: int) -> list[Attempt]:
        rows = await self.redis.lrange(webhook_attempts_key(webhook_id), offset, offset + count - 1)
        return [msgspec.json.decode(r, type=Attempt) for r in rows]


def notifications(
    game_id: str,
    version: int,
    at_ms: int,
    new_turns: list[tuple[int, str, str, int | None]],
    finished: tuple[list[int], list[int]] | None,
    recorded: tuple[list[int], list[int]] | None,
    ended: Literal["abandoned", "aborted"] | None = None,
) -> list[Notification]:
    """What changed, as notifications (pure): new turns of human seats, the end (played
    out, abandoned, or aborted by the game's creator), the result."""
    note = functools.partial(Notification, game_id=game_id, version=version, at_ms=at_ms)
    out = [
        note(
            id=f"{game_id}-{version}-awaited-{seat}",
            kind="seat.awaited",
            seat=seat,
            action=action,
            step=step,
            deadline=deadline,
        )
        for seat, action, step, deadline in new_turns
    ]
    if finished is not None:
        scores, winners = finished
        out.append(
            note(
                id=f"{game_id}-finished",
                kind="game.finished",
                scores=scores,
                winners=winners,
                status="finished",
            )
        )
    if recorded is not None:
        scores, winners = recorded
        out.append(
            note(id=f"{game_id}-recorded", kind="result.recorded", scores=scores, winners=winners)
        )
    if ended is not None:
        out.append(note(id=f"{game_id}-{ended}", kind="game.finished", status=ended))
    return out


def wanted(webhook: Webhook, notification: Notification) -> bool:
    return notification.kind in webhook.events and webhook.game_id in (None, notification.game_id)


class DeliveryOutcome(msgspec.Struct, frozen=True):
    status_code: int | None
    error: str | None
    seconds: float

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def delivery_headers(secret: str, notification: Notification, body: bytes) -> dict[str, str]:
    """The headers of one attempt: signed now; ``Stakeout-Delivery`` is the notification's
    id, the same on every attempt, that receivers de-duplicate on."""
    return {
        "Content-Type": "application/json",
        SIGNATURE_HEADER: sign(secret, int(time.time()), body),
        "Stakeout-Event": notification.kind,
        "Stakeout-Delivery": notification.id,
    }


async def post(
    client: delivery_client.DeliveryClient,
    url: str,
    body: bytes,
    headers: dict[str, str],
    deadline: float,
) -> DeliveryOutcome:
    """POST ``body`` within ``deadline`` seconds overall; read no more than a little back.

    ``client``: the process's delivery client (public addresses only, connections kept
    alive per origin). An answer of up to ``KEPT_BODY_BYTES`` is read to its end (so its
    connection can serve the next delivery); a longer one is cut off there.
    """
    started = time.monotonic()
    status: int | None = None
    error: str | None = None
    try:
        async with asyncio.timeout(deadline), client.post(url, body, headers) as response:
            status = response.status
            head = await delivery_client.read_head(response, KEPT_BODY_BYTES + 1)
            if not 200 <= status < 300:
                error = f"HTTP {status}: {head[:KEPT_BODY_BYTES].decode(errors='replace')}"
    except TimeoutError:
        error = f"no answer within {deadline:g} s"
    except (*delivery_client.HTTP_ERRORS, WebhookUrlInvalid) as exc:
        error = f"{type(exc).__name__}: {exc}"
    seconds = time.monotonic() - started
    return DeliveryOutcome(status, None if error is None else error[:300], seconds)
