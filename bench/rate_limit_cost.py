"""What the rate limit costs a request: the same request with the limit off and on.

    .venv/bin/python bench/rate_limit_cost.py [--requests 1500] [--rounds 2]

One in-process app (Litestar's TestClient) over an embedded Valkey, `GET /v1/games` with an
API key, alternating the limit off and on so that machine noise hits both alike. The limit
is set too high to refuse anything: the figure is the counting itself (one Lua script in
Redis a request). A measurement, not a test.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from litestar.testing import TestClient

from service.app import create_app
from service.ops.embedded import EmbeddedRedis
from service.settings import Settings

KEY = "bench-key"


def per_request(url: str, limit: int, requests: int) -> float:
    settings = Settings(redis_url=url, api_keys=(KEY,), rate_limit_per_minute=limit)
    headers = {"Authorization": f"Bearer {KEY}"}
    with TestClient(app=create_app(settings)) as client:
        for _ in range(50):  # warm up
            client.get("/v1/games", headers=headers)
        start = time.perf_counter()
        for _ in range(requests):
            assert client.get("/v1/games", headers=headers).status_code == 200
        return (time.perf_counter() - start) / requests


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    server = EmbeddedRedis(Path(tempfile.mkdtemp()))
    url = server.start()
    try:
        print("| round | limit off: ms/request | limit on: ms/request | on / off |")
        print("|---|---|---|---|")
        for n in range(args.rounds):
            off = per_request(url, 0, args.requests)
            on = per_request(url, 10**9, args.requests)
            print(f"| {n + 1} | {off * 1000:.3f} | {on * 1000:.3f} | {on / off:.2f} |", flush=True)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
