"""Every error the service answers, mapped to a problem response in one place."""

from __future__ import annotations

import logging
from typing import Any

import redis.exceptions
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException

from domain.errors import DomainError, RevealMismatch
from service.http.problems import PROBLEM_MEDIA_TYPE, Problem, problem
from service.play.game_service import Contention, GameNotFound, IdempotencyMismatch, VersionMismatch

log = logging.getLogger("stakeout")


class ServiceError(Exception):
    code = "invalid-request"

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class InvalidRequest(ServiceError):
    code = "invalid-request"


class Unauthorized(ServiceError):
    code = "unauthorized"


class Forbidden(ServiceError):
    code = "forbidden"


class GameNotFinished(ServiceError):
    code = "game-not-finished"


class RateLimited(ServiceError):
    code = "too-many-requests"

    def __init__(self, detail: str, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class Unavailable(ServiceError):
    code = "unavailable"


class UnknownInviteProblem(ServiceError):
    code = "unknown-invite"


class WebhookNotFound(ServiceError):
    code = "not-found"


class WebhookLimit(ServiceError):
    code = "webhook-limit"


class WebhookTargetRefused(ServiceError):
    code = "webhook-target-refused"


class WebhookUrlInvalid(ServiceError):
    code = "webhook-url-invalid"


# Redis (event store or queue) did not answer: a connection refused or reset, or a command
# past its short timeout (service/wiring.py). Retryable, so 503 with Retry-After.
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


def to_problem(exc: Exception) -> Problem:
    if isinstance(exc, RevealMismatch) and exc.preimage is not None:
        return problem(exc.code, exc.detail, preimage=exc.preimage)
    if isinstance(exc, DomainError):
        return problem(exc.code, exc.detail)
    if isinstance(exc, ServiceError):
        return problem(exc.code, exc.detail)
    if isinstance(exc, GameNotFound):
        return problem("unknown-game", f"no game {exc.args[0]!r}")
    if isinstance(exc, VersionMismatch):
        return problem("version-mismatch", str(exc), current_version=exc.current)
    if isinstance(exc, IdempotencyMismatch):
        return problem("idempotency-mismatch", str(exc))
    if isinstance(exc, Contention):
        return problem("busy", str(exc))
    if isinstance(exc, REDIS_DOWN):
        log.warning("Redis unavailable: %s: %s", type(exc).__name__, exc)
        return problem("unavailable", "the data store did not answer in time; retry shortly")
    if isinstance(exc, ValidationException):
        return problem("invalid-request", _validation_detail(exc))
    if isinstance(exc, HTTPException):
        code = _HTTP_CODES.get(exc.status_code)
        if code is not None:
            return problem(code, str(exc.detail))
    log.exception("unhandled error", exc_info=exc)
    return problem("internal", "an internal error occurred; it has been logged")


def _validation_detail(exc: ValidationException) -> str:
    extra = exc.extra
    if isinstance(extra, list) and extra:
        parts = []
        for item in extra[:5]:
            if isinstance(item, dict):
                parts.append(f"{item.get('key', '')}: {item.get('message', '')}".strip(": "))
        if parts:
            return "; ".join(parts)
    return str(exc.detail)


def problem_handler(request: Request[Any, Any, Any], exc: Exception) -> Response[Problem]:
    body = to_problem(exc)
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
