"""Wire types of webhooks: registering one, listing them, and their delivery attempts."""

from __future__ import annotations

from typing import Annotated, get_args

import msgspec

from service.notify.webhooks import Attempt, EventKind

# Every kind a webhook may ask for (each at most once).
EVENT_KINDS = get_args(EventKind)


class RegisterWebhook(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Where to POST, which event kinds, and optionally only one game's."""

    # Printable ASCII only (no spaces): a class that means the same in JSON Schema's regular
    # expressions (ECMA-262) and in Python's, unlike ``\s`` (a URL is percent-encoded).
    url: Annotated[str, msgspec.Meta(pattern="^https?://[!-~]{1,2040}$", max_length=2048)]
    events: Annotated[list[EventKind], msgspec.Meta(min_length=1, max_length=len(EVENT_KINDS))]
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
