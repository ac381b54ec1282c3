"""CORS only for requests that ask for it.

Litestar's CORS middleware wraps every request: it builds a header map of the request
(``Headers.from_scope``) to look for ``Origin``, then passes a request without one on
untouched. Under load that lookup was about a twentieth of a `/healthz` request's CPU (a
py-spy profile of the API under the Node driver, docs/design-move-path.md "Fourth pass").
This layer looks for the header in the raw list and hands only requests that carry one
to Litestar's middleware (the same object, configured by the app's ``cors_config``, which
also answers preflights); the answers are Litestar's, byte for byte.
"""

from __future__ import annotations

from collections.abc import Awaitable

from litestar import Litestar
from litestar.middleware._internal.cors import CORSMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send


class CorsWhenAsked:
    def __init__(self, cors: CORSMiddleware) -> None:
        self.cors = cors
        self.inner: ASGIApp = cors.app

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        # A plain function handing back the chosen app's coroutine: no frame of its own
        # for the request to pass through (the same for the fast lane and the request ids).
        for name, _ in scope.get("headers", ()):
            if name == b"origin":
                return self.cors(scope, receive, send)
        return self.inner(scope, receive, send)


def cors_when_asked(app: Litestar) -> Litestar:
    """Put `CorsWhenAsked` in place of the app's CORS middleware (when it has one)."""
    if isinstance(app.asgi_handler, CORSMiddleware):
        app.asgi_handler = CorsWhenAsked(app.asgi_handler)
    return app


__all__ = ["CorsWhenAsked", "cors_when_asked"]
