"""CORS from Litestar's own middleware (the app's ``cors_config``): requests that carry an
Origin get its headers, others none; preflights are answered."""

from __future__ import annotations

from litestar import Litestar
from litestar.testing import TestClient


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


def test_a_preflight_asking_for_a_header_the_api_does_not_take_is_a_problem(
    client: TestClient[Litestar],
) -> None:
    refused = client.options(
        "/v1/games",
        headers={
            "Origin": "https://app.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "Authorization, X-Evil",
        },
    )
    assert refused.status_code == 400
    assert refused.headers["content-type"] == "application/problem+json"
    assert refused.json()["type"] == "urn:stakeout:problem:invalid-request"
    assert "x-evil" in refused.json()["detail"]
    # Without Origin, OPTIONS is the router's: the methods the path allows.
    plain = client.options("/v1/games")
    assert plain.status_code == 204
    assert "POST" in plain.headers["allow"]
