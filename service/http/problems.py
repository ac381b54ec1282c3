"""RFC 9457 problem responses: one stable ``type`` per error, mapped in one place."""

from __future__ import annotations

from typing import Any

import msgspec

PROBLEM_MEDIA_TYPE = "application/problem+json"
TYPE_PREFIX = "urn:stakeout:problem:"


class Problem(msgspec.Struct, omit_defaults=True):
    """An error. ``type`` is stable: clients branch on it, never on ``detail``."""

    type: str
    title: str
    status: int
    detail: str
    instance: str | None = None
    current_version: int | None = None
    # reveal-mismatch only: the exact string the server hashed from the revealed move and
    # salt (the caller's own move), to compare with what the client hashed.
    preimage: str | None = None


# code → (HTTP status, title). The catalogue is published in the OpenAPI document.
CATALOGUE: dict[str, tuple[int, str]] = {
    "invalid-request": (400, "The request is malformed"),
    "unauthorized": (401, "A valid bearer token is required"),
    "forbidden": (403, "This token may not do that"),
    "not-found": (404, "No such resource"),
    "unknown-game": (404, "No such game"),
    "unknown-invite": (404, "No such invite"),
    "token-in-url": (400, "Seat tokens and API keys never go into a URL: use a stream ticket"),
    "invalid-ticket": (401, "The stream ticket is unknown, used or expired"),
    "method-not-allowed": (405, "Method not allowed"),
    "not-acceptable": (406, "Not acceptable"),
    "not-your-turn": (409, "It is not this seat's turn"),
    "wrong-phase": (409, "The move does not fit the current step"),
    "sealed-step": (409, "This step is sealed: commit, then reveal"),
    "commitment-rejected": (409, "The commitment or reveal is out of order"),
    "game-finished": (409, "The game is over"),
    "game-not-finished": (409, "The game is not over yet"),
    "game-not-started": (409, "The game waits for players: nobody may act yet"),
    "game-started": (409, "The game has started: its seats are settled"),
    "seat-taken": (409, "The seat has been claimed by someone else"),
    "not-an-open-seat": (409, "The seat was not open at creation"),
    "webhook-limit": (409, "The API key has as many webhooks as it may"),
    "active-game-limit": (409, "The API key has as many active games as it may"),
    "version-mismatch": (412, "The game has moved on since that version"),
    "payload-too-large": (413, "The request body is too large"),
    "unsupported-media-type": (415, "Send application/json"),
    "illegal-move": (422, "The move breaks a rule of the game"),
    "invalid-options": (422, "The game cannot be created with these options"),
    "reveal-mismatch": (422, "The reveal does not match the commitment"),
    "idempotency-mismatch": (422, "The Idempotency-Key was used for another request"),
    "webhook-url-invalid": (422, "The webhook URL cannot be parsed"),
    "webhook-target-refused": (422, "Webhooks may only target public addresses"),
    "too-many-requests": (429, "Too many requests"),
    "internal": (500, "Internal error"),
    "busy": (503, "The game is busy; retry"),
    "unavailable": (503, "The service is not ready"),
}


def problem(code: str, detail: str, **extra: Any) -> Problem:
    status, title = CATALOGUE[code]
    return Problem(type=TYPE_PREFIX + code, title=title, status=status, detail=detail, **extra)
