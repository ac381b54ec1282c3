"""RFC 9457 problem responses: one stable ``type`` per error, mapped in one place.

Every error the service answers is a domain error (`domain.errors.DomainError`) or a
`service.play.errors.ServiceError`, each with its ``code``; this module turns either, and
what Litestar or Redis raise, into a problem response.
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec
import redis.exceptions
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException

from domain.errors import DomainError, RevealMismatch
from service.http.allowed_values import choices, listed
from service.play.errors import ServiceError

log = logging.getLogger("stakeout")

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
    "unknown-player": (404, "The player has no rating in that game"),
    "unknown-ticket": (404, "No such matchmaking ticket"),
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
    "ticket-matched": (409, "The ticket has its seat in a game: too late to cancel"),
    "ticket-limit": (409, "The API key has as many waiting tickets as it may"),
    "player-ticket-limit": (409, "The player waits in as many queues as it may"),
    "seat-bound": (409, "The seat's creator bound it to another player"),
    "version-mismatch": (412, "The game has moved on since that version"),
    "payload-too-large": (413, "The request body is too large"),
    "unsupported-media-type": (415, "Send application/json"),
    "illegal-move": (422, "The move breaks a rule of the game"),
    "unknown-seat": (422, "The game has no such seat"),
    "invalid-options": (422, "The game cannot be created with these options"),
    "invalid-external-id": (422, "The external_id breaks the identity rule"),
    "invalid-name": (422, "The seat name holds a character no name may hold"),
    "identity-needs-api-key": (422, "Only the game's API key binds an external_id"),
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


class RateLimited(ServiceError):
    code = "too-many-requests"

    def __init__(self, detail: str, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


# Redis (event store or queue) did not answer: a connection refused or reset, or a command
# past its short timeout (service/store/clients.py). Retryable, so 503 with Retry-After.
REDIS_DOWN = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.ClusterDownError,
)
RETRY_AFTER_SECONDS = 1

_HTTP_CODES = {
    400: "invalid-request",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    406: "not-acceptable",
    413: "payload-too-large",
    415: "unsupported-media-type",
    429: "too-many-requests",
    503: "unavailable",
}


def to_problem(exc: Exception, request: Request[Any, Any, Any] | None = None) -> Problem:
    if isinstance(exc, RevealMismatch) and exc.preimage is not None:
        return problem(exc.code, exc.detail, preimage=exc.preimage)
    if isinstance(exc, DomainError):
        return problem(exc.code, exc.detail)
    if isinstance(exc, ServiceError):
        return problem(exc.code, exc.detail, **exc.problem_fields())
    if isinstance(exc, REDIS_DOWN):
        log.warning("Redis unavailable: %s: %s", type(exc).__name__, exc)
        return problem("unavailable", "the data store did not answer in time; retry shortly")
    if isinstance(exc, ValidationException):
        return problem("invalid-request", _validation_detail(exc, request))
    if isinstance(exc, HTTPException):
        code = _HTTP_CODES.get(exc.status_code)
        if code is not None:
            return problem(code, str(exc.detail))
    log.exception("unhandled error", exc_info=exc)
    return problem("internal", "an internal error occurred; it has been logged")


def _validation_detail(exc: ValidationException, request: Request[Any, Any, Any] | None) -> str:
    extra = exc.extra
    if isinstance(extra, list) and extra:
        parts = []
        for item in extra[:5]:
            if isinstance(item, dict):
                part = f"{item.get('key', '')}: {item.get('message', '')}".strip(": ")
                allowed = _parameter_choices(request, str(item.get("key", "")))
                parts.append(f"{part} ({listed(allowed)})" if allowed else part)
        if parts:
            return "; ".join(parts)
    return str(exc.detail)


def _parameter_choices(request: Request[Any, Any, Any] | None, key: str) -> tuple[str, ...]:
    """The values a refused query, path or header parameter allows (a closed set), or ()."""
    if request is None or not key:
        return ()
    try:
        parameters = request.route_handler.parsed_fn_signature.parameters
    except AttributeError:  # no handler matched
        return ()
    for name, field in parameters.items():
        kwarg = field.kwarg_definition
        wire = getattr(kwarg, "query", None) or getattr(kwarg, "header", None) or name
        if key in (name, wire):
            return choices(field.annotation)
    return ()


def problem_handler(request: Request[Any, Any, Any], exc: Exception) -> Response[Problem]:
    """The app's one exception handler: every error as its problem response."""
    body = to_problem(exc, request)
    headers = {}
    if body.status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="stakeout"'
    if isinstance(exc, RateLimited):
        headers["Retry-After"] = str(exc.retry_after)
    elif body.status == 503:
        headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    if isinstance(exc, HTTPException) and body.status == 405 and exc.headers:
        # RFC 9110: a 405 lists the methods the resource supports (Litestar's router knows).
        headers.update({k.title(): v for k, v in exc.headers.items() if k.lower() == "allow"})
    return Response(
        body,
        status_code=body.status,
        media_type=PROBLEM_MEDIA_TYPE,
        headers=headers,
    )
