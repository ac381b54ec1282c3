"""What `appendfsync always` costs against `everysec`: append latency and throughput.

    .venv/bin/python bench/appendfsync_cost.py [--appends 2000] [--seconds 3]

For each policy, a fresh embedded Valkey (AOF on, data in a temporary folder on this
machine's disk) takes: ``--appends`` sequential stream appends (one client, each waits for
its answer: the latency an act sees), then as many appends as 16 concurrent clients manage
in ``--seconds`` (throughput: with `always`, Valkey fsyncs once per event-loop turn, so
concurrent appends share a sync). Each append is an XADD of a 300-byte event, as the event
store writes. Prints p50/p99 latency and appends/s per policy. A measurement, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

import redis
import redis.asyncio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.ops.embedded import EmbeddedRedis

EVENT = b"x" * 300


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def throughput(url: str, seconds: float, clients: int = 16) -> int:
    done = 0
    deadline = time.perf_counter() + seconds

    async def client(index: int) -> None:
        nonlocal done
        connection = redis.asyncio.Redis.from_url(url)
        try:
            while time.perf_counter() < deadline:
                await connection.xadd(f"bench:{{t{index}}}:events", {"e": EVENT})
                done += 1
        finally:
            await connection.aclose()

    await asyncio.gather(*(client(i) for i in range(clients)))
    return done


def measure(policy: str, appends: int, seconds: float) -> None:
    server = EmbeddedRedis(Path(tempfile.mkdtemp()) / "valkey", appendfsync=policy)
    url = server.start()
    connection = redis.Redis.from_url(url)
    try:
        latencies = []
        for _ in range(appends):
            started = time.perf_counter()
            connection.xadd("bench:{seq}:events", {"e": EVENT})
            latencies.append(time.perf_counter() - started)
        count = asyncio.run(throughput(url, seconds))
        print(
            f"appendfsync {policy:8}: one client p50 {pct(latencies, 0.5):.2f} ms, "
            f"p99 {pct(latencies, 0.99):.2f} ms; 16 clients {count / seconds:,.0f} appends/s"
        )
    finally:
        connection.close()
        server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    for policy in ("everysec", "always"):
        measure(policy, args.appends, args.seconds)
