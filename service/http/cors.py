"""Cross-origin requests: a web app on another origin may call the API (any origin: the API's
credentials are bearer tokens, never cookies).

A small layer of our own around the whole app, in place of Litestar's CORS middleware:
that one builds a header map of every request to look for ``Origin`` (measured: a tenth
of a `/healthz` request's CPU, a few percent of an act's; docs/design-move-path.md), and
refuses a preflight it dislikes in plain text. Here a request without ``Origin`` passes
untouched; one with it gets ``Access-Control-Allow-Origin`` and the headers a script may
read (``Access-Control-Expose-Headers``); a preflight (``OPTIONS`` with
``Access-Control-Request-Method``) is answered here, 204, or 400 as a problem when it
asks for a header the API does not take.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

import msgspec
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from service.http.problems import PROBLEM_MEDIA_TYPE, problem

# The request headers a cross-origin script may send (besides the CORS-safelisted ones).
ALLOW_HEADERS = (
    "Authorization",
    "Content-Type",
    "Idempotency-Key",
    "If-Match",
    "Prefer",
    "X-Request-ID",
)
# The answer headers a cross-origin script may read (besides the CORS-safelisted ones).
EXPOSE_HEADERS = ("ETag", "Preference-Applied", "Retry-After", "X-Request-ID")
METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")
SAFELISTED = ("Accept", "Accept-Language", "Content-Language", "Content-Type")
MAX_AGE_SECONDS = 600

_ALLOWED = {h.lower() for h in (*ALLOW_HEADERS, *SAFELISTED)}
_ANSWER_HEADERS = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-expose-headers", ", ".join(EXPOSE_HEADERS).encode()),
]
_PREFLIGHT_HEADERS = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-allow-methods", ", ".join(METHODS).encode()),
    (b"access-control-allow-headers", ", ".join((*SAFELISTED, *ALLOW_HEADERS)).encode()),
    (b"access-control-max-age", str(MAX_AGE_SECONDS).encode()),
]


class Cors:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        # A plain function handing back the chosen app's coroutine: no frame of its own for
        # a request without Origin to pass through.
        if scope["type"] != ScopeType.HTTP:
            return self.app(scope, receive, send)
        origin = requested = None
        for name, value in scope["headers"]:
            if name == b"origin":
                origin = value
            elif name == b"access-control-request-method":
                requested = value
        if origin is None:
            return self.app(scope, receive, send)
        if scope.get("method") == "OPTIONS" and requested is not None:
            return _preflight(scope, send)
        return self.app(scope, receive, _exposing(send))


def _exposing(send: Send) -> Send:
    async def with_cors(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *_ANSWER_HEADERS]}
        await send(message)

    return with_cors


async def _preflight(scope: Scope, send: Send) -> None:
    asked: list[str] = []
    for name, value in scope["headers"]:
        if name == b"access-control-request-headers":
            asked += [h.strip().lower() for h in value.decode("latin-1").split(",") if h.strip()]
    refused = sorted(set(asked) - _ALLOWED)
    if not refused:
        await _answer(send, 204, _PREFLIGHT_HEADERS, b"")
        return
    detail = (
        f"a cross-origin request may not send {', '.join(refused)}; it may send "
        f"{', '.join(ALLOW_HEADERS)}"
    )
    body = msgspec.json.encode(problem("invalid-request", detail))
    headers = [(b"content-type", PROBLEM_MEDIA_TYPE.encode()), *_ANSWER_HEADERS]
    await _answer(send, 400, headers, body)


async def _answer(send: Send, status: int, headers: list[Any], body: bytes) -> None:
    length = (b"content-length", str(len(body)).encode())
    await send({"type": "http.response.start", "status": status, "headers": [*headers, length]})
    await send({"type": "http.response.body", "body": body, "more_body": False})


__all__ = ["ALLOW_HEADERS", "EXPOSE_HEADERS", "Cors"]
