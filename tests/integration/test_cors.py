"""CORS answers only requests that carry an Origin (service/http/cors.py), and answers them as
Litestar's CORS middleware does."""

from __future__ import annotations

from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.http.cors import CorsWhenAsked
from service.settings import Settings


def _layers(app: Litestar) -> list[type]:
    layers, handler = [], app.asgi_handler
    while handler is not None and not isinstance(handler, Litestar):
        layers.append(type(handler))
        # The next layer in: `inner` where a layer has both (the fast lane keeps the app).
        handler = getattr(handler, "inner", None) or getattr(handler, "app", None)
    return layers


def test_the_cors_middleware_is_behind_the_origin_check(settings: Settings) -> None:
    layers = _layers(create_app(settings))
    assert CorsWhenAsked in layers
    assert "CORSMiddleware" not in [layer.__name__ for layer in layers]


def test_requests_with_an_origin_get_cors_headers_and_others_none(
    client: TestClient[Litestar],
) -> None:
    plain = client.get("/healthz")
    assert plain.status_code == 200
    assert not [h for h in plain.headers if h.lower().startswith("access-control-")]

    simple = client.get("/healthz", headers={"Origin": "https://app.example"})
    assert simple.status_code == 200
    assert simple.headers["access-control-allow-origin"] == "*"
    exposed = {
        h.strip().lower() for h in simple.headers["access-control-expose-headers"].split(",")
    }
    assert {"etag", "preference-applied", "retry-after", "x-request-id"} <= exposed

    preflight = client.options(
        "/v1/games",
        headers={
            "Origin": "https://app.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "Authorization, Content-Type, Idempotency-Key",
        },
    )
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == "*"
    assert "POST" in preflight.headers["access-control-allow-methods"]
    allowed = {
        h.strip().lower() for h in preflight.headers["access-control-allow-headers"].split(",")
    }
    assert {"authorization", "content-type", "idempotency-key"} <= allowed
