"""Wire types of webhooks: registering one, listing them, and their delivery attempts."""

from __future__ import annotations

from typing import Annotated, get_args

import msgspec

from domain.engine import doc
from service.notify.webhooks import Attempt, EventKind

# Every kind a webhook may ask for (each at most once).
EVENT_KINDS = get_args(EventKind)

EVENT_KINDS_TEXT = (
    "The notification kinds: seat.awaited (a human seat must act), game.finished (the game "
    "ended: played out, abandoned or aborted), result.recorded (the scoring job recorded "
    "the result), game.started (no seat is open any more), game.aborted (its creator "
    "aborted it), rematch.created (the next game of the table), match.found (a matchmaking "
    "ticket was seated in a new game)."
)
WEBHOOK_ID = "The webhook's id."
DELIVERED_TO = "Where deliveries are POSTed."
GAME_FILTER = "Only this game's notifications; null for every game of the API key."
REGISTERED_MS = "When it was registered (epoch milliseconds)."


class RegisterWebhook(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A webhook to register: where to POST, which notifications, which games."""

    # Printable ASCII only (no spaces): a class that means the same in JSON Schema's regular
    # expressions (ECMA-262) and in Python's, unlike ``\s`` (a URL is percent-encoded).
    url: Annotated[
        str,
        msgspec.Meta(
            pattern="^https?://[!-~]{1,2040}$",
            max_length=2048,
            description="Where deliveries are POSTed (http or https, a public address).",
        ),
    ]
    events: Annotated[
        list[EventKind],
        msgspec.Meta(min_length=1, max_length=len(EVENT_KINDS), description=EVENT_KINDS_TEXT),
    ]
    game_id: (
        Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{24}$", description=GAME_FILTER)] | None
    ) = None


class WebhookInfo(msgspec.Struct, frozen=True):
    """A registered webhook (its secret is never shown again)."""

    id: Annotated[str, doc(WEBHOOK_ID)]
    url: Annotated[str, doc(DELIVERED_TO)]
    events: Annotated[list[EventKind], doc(EVENT_KINDS_TEXT)]
    game_id: Annotated[str | None, doc(GAME_FILTER)]
    created_ms: Annotated[int, doc(REGISTERED_MS)]


class WebhookCreated(msgspec.Struct, frozen=True):
    """A new webhook, with its signing secret (shown this once)."""

    id: Annotated[str, doc(WEBHOOK_ID)]
    url: Annotated[str, doc(DELIVERED_TO)]
    events: Annotated[list[EventKind], doc(EVENT_KINDS_TEXT)]
    game_id: Annotated[str | None, doc(GAME_FILTER)]
    created_ms: Annotated[int, doc(REGISTERED_MS)]
    secret: Annotated[
        str, doc("The HMAC-SHA256 key that signs every delivery (Stakeout-Signature).")
    ]


class WebhookList(msgspec.Struct, frozen=True):
    """The API key's webhooks."""

    webhooks: Annotated[list[WebhookInfo], doc("Newest first.")]


class AttemptPage(msgspec.Struct, frozen=True):
    """A page of delivery attempts, newest first."""

    attempts: Annotated[list[Attempt], doc("The attempts of this page.")]
    next_offset: Annotated[
        int | None, doc("Pass it as `offset` for the next page; null on the last page.")
    ]
