"""What each layer of the request pipeline costs a request. Not a test.

    .venv/bin/python bench/pipeline_cost.py [--requests 20000] [--rounds 3]

A no-op route (``GET /noop``) in a Litestar app, called as ASGI directly (no server, no
socket: only the app's own work), with one layer added at a time: CORS; the rate-limit
middleware with the limit off (a setting check); the rate-limit middleware counting in a
real Valkey (one round trip); request ids + access log line (JSON, to a file) + HTTP
metrics (`service.observability`); then the whole stakeout app's ``/healthz``. Rounds
alternate the variants, so machine noise hits them alike; the best round is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from litestar import Litestar, get
from litestar.config.cors import CORSConfig

from service.app import create_app
from service.embedded import EmbeddedRedis
from service.observability import configure_logging, instrument
from service.ratelimit import RateLimiter, RateLimitMiddleware
from service.settings import Settings


@get("/noop")
async def noop() -> dict[str, str]:
    return {"status": "ok"}


def variant(
    cors: bool = False, limit: str = "none", observe: bool = False, redis_url: str = ""
) -> Litestar:
    app = Litestar(
        route_handlers=[noop],
        middleware=[RateLimitMiddleware()] if limit != "none" else [],
        cors_config=CORSConfig(allow_origins=["*"]) if cors else None,
        logging_config=None,
        debug=False,
    )
    if limit == "on":
        app.state.rate_limiter = RateLimiter(redis_url, 10**9)
    return instrument(app) if observe else app


async def call(app: Any, path: str, requests: int) -> float:
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1"), (b"authorization", b"Bearer sk_bench")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    statuses: list[int] = []

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    for _ in range(200):  # warm up
        await app(dict(scope), receive, send)
    start = time.perf_counter()
    for _ in range(requests):
        await app(dict(scope), receive, send)
    elapsed = time.perf_counter() - start
    assert set(statuses) == {200}, set(statuses)
    return elapsed / requests


async def lifespan(app: Litestar, body: Callable[[], Any]) -> Any:
    async with app.lifespan():
        return await body()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp) / "valkey")
        url = server.start()
        # JSON logs as `stakeout serve` sets them up, stderr going to a file (as a
        # deployment's goes to a collector).
        sys.stderr = open(os.path.join(tmp, "stderr.log"), "w")  # noqa: SIM115 - until exit
        configure_logging("INFO")
        variants: dict[str, Callable[[], tuple[Litestar, str]]] = {
            "bare Litestar, no-op route": lambda: (variant(), "/noop"),
            "+ CORS": lambda: (variant(cors=True), "/noop"),
            "+ rate-limit middleware, limit off": lambda: (variant(limit="off"), "/noop"),
            "+ rate-limit middleware, counting in Redis": lambda: (
                variant(limit="on", redis_url=url),
                "/noop",
            ),
            "+ request id, access log, metrics": lambda: (variant(observe=True), "/noop"),
            "stakeout app, /healthz (limit off)": lambda: (
                create_app(
                    Settings(redis_url=url, api_keys=("sk_bench",), rate_limit_per_minute=0)
                ),
                "/healthz",
            ),
            "stakeout app, /v1/rules (limit on)": lambda: (
                create_app(
                    Settings(redis_url=url, api_keys=("sk_bench",), rate_limit_per_minute=10**8)
                ),
                "/v1/rules",
            ),
        }
        best: dict[str, float] = {}
        try:
            for _ in range(args.rounds):
                for name, make in variants.items():
                    app, path = make()

                    async def body(app: Litestar = app, path: str = path) -> float:
                        return await call(app, path, args.requests)

                    seconds = asyncio.run(lifespan(app, body))
                    best[name] = min(best.get(name, seconds), seconds)
        finally:
            server.stop()
    sys.stderr = sys.__stderr__
    base = best["bare Litestar, no-op route"]
    print(f"{args.requests} requests a variant, best of {args.rounds} rounds (µs a request)")
    print("| pipeline | µs / request | over bare |")
    print("|---|---|---|")
    for name, seconds in best.items():
        print(f"| {name} | {seconds * 1e6:.1f} | {(seconds - base) * 1e6:+.1f} |")


if __name__ == "__main__":
    main()
