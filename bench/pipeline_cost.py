"""What each layer of the request pipeline costs a request. Not a test.

    .venv/bin/python bench/pipeline_cost.py [--batch 500] [--rounds 30]

A no-op route (``GET /noop``) in a Litestar app, called as ASGI directly (no server, no
socket: only the app's own work), with one layer added at a time: CORS; the rate-limit
middleware with the limit off (a setting check); the rate-limit middleware counting in a
real Valkey (a round trip a request with a burst under 40; leases of 10 tokens with the
default burst of 200); request ids alone, with the access log line (JSON, to a file), with
the HTTP metrics, with both (`service.http.observability`); then the whole stakeout app.
Batches of every variant alternate round by round, so machine noise hits them alike; the
median batch is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from litestar import Litestar, get
from litestar.config.cors import CORSConfig

from service.app import create_app
from service.http.observability import instrument
from service.http.ratelimit import RateLimiter, RateLimitMiddleware
from service.ops.embedded import EmbeddedRedis
from service.play.access import ApiKeys
from service.settings import Settings
from service.telemetry.logs import configure_logging

KEY = "sk_bench"


@get("/noop")
async def noop() -> dict[str, str]:
    return {"status": "ok"}


def variant(
    cors: bool = False,
    limit: str = "none",
    observe: str = "",
    redis_url: str = "",
    lease: bool = True,
) -> Litestar:
    app = Litestar(
        route_handlers=[noop],
        middleware=[RateLimitMiddleware()] if limit != "none" else [],
        cors_config=CORSConfig(allow_origins=["*"]) if cors else None,
        logging_config=None,
        debug=False,
    )
    if limit == "on":
        # The default shape of the limit (a burst of 200: leases of 10), or one round trip
        # a request (a burst under 40), as before leases. What tells whose budget a request
        # spends: the API keys (the bench's requests carry one).
        callers: Any = SimpleNamespace(api_keys=ApiKeys((KEY,)))
        burst = 200 if lease else 39
        app.state.rate_limiter = RateLimiter(redis_url, 10**9, burst, callers=callers)
    if not observe:
        return app
    return instrument(app, access="access" in observe, metrics="metrics" in observe)


def _scope(path: str) -> dict[str, Any]:
    return {
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


async def call(app: Any, path: str, requests: int) -> float:
    """Seconds a request, over ``requests`` sequential calls."""
    scope = _scope(path)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    statuses: list[int] = []

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    start = time.perf_counter()
    for _ in range(requests):
        await app(dict(scope), receive, send)
    elapsed = time.perf_counter() - start
    assert set(statuses) == {200}, set(statuses)
    return elapsed / requests


async def measure(
    apps: dict[str, tuple[Litestar, str]], batch: int, rounds: int
) -> dict[str, list[float]]:
    """Every app's lifespan open at once; batches interleaved round by round."""
    seconds: dict[str, list[float]] = {name: [] for name in apps}
    async with contextlib.AsyncExitStack() as stack:
        for app, _ in apps.values():
            await stack.enter_async_context(app.lifespan())
        for app, path in apps.values():
            await call(app, path, 200)  # warm up
        for _ in range(rounds):
            for name, (app, path) in apps.items():
                seconds[name].append(await call(app, path, batch))
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp) / "valkey")
        url = server.start()
        # JSON logs as `stakeout serve` sets them up, stderr going to a file (as a
        # deployment's goes to a collector).
        sys.stderr = open(os.path.join(tmp, "stderr.log"), "w")  # noqa: SIM115 - until exit
        configure_logging("INFO")
        apps: dict[str, tuple[Litestar, str]] = {
            "bare Litestar, no-op route": (variant(), "/noop"),
            "+ CORS": (variant(cors=True), "/noop"),
            "+ rate-limit middleware, limit off": (variant(limit="off"), "/noop"),
            "+ rate-limit middleware, counting in Redis, a round trip a request (burst < 40)": (
                variant(limit="on", redis_url=url, lease=False),
                "/noop",
            ),
            "+ rate-limit middleware, counting in Redis, leases of 10 (burst 200, default)": (
                variant(limit="on", redis_url=url),
                "/noop",
            ),
            "+ request id": (variant(observe="id"), "/noop"),
            "+ request id, access log": (variant(observe="id,access"), "/noop"),
            "+ request id, metrics": (variant(observe="id,metrics"), "/noop"),
            "+ request id, access log, metrics": (variant(observe="id,access,metrics"), "/noop"),
            "stakeout app, /healthz (limit off)": (
                create_app(Settings(redis_url=url, api_keys=(KEY,), rate_limit_per_minute=0)),
                "/healthz",
            ),
            "stakeout app, /healthz (limit on: not counted)": (
                create_app(Settings(redis_url=url, api_keys=(KEY,), rate_limit_per_minute=10**8)),
                "/healthz",
            ),
            "stakeout app, /v1/rules (limit on, burst 200: counted in leases)": (
                create_app(Settings(redis_url=url, api_keys=(KEY,), rate_limit_per_minute=10**8)),
                "/v1/rules",
            ),
        }
        try:
            seconds = asyncio.run(measure(apps, args.batch, args.rounds))
        finally:
            server.stop()
    sys.stderr = sys.__stderr__
    median = {name: statistics.median(values) for name, values in seconds.items()}
    base = median["bare Litestar, no-op route"]
    print(
        f"{args.rounds} rounds of {args.batch} requests a variant, interleaved; median µs a request"
    )
    print("| pipeline | µs / request | over bare |")
    print("|---|---|---|")
    for name, value in median.items():
        print(f"| {name} | {value * 1e6:.1f} | {(value - base) * 1e6:+.1f} |")


if __name__ == "__main__":
    main()
