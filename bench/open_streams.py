"""How many live feeds one API process holds: open N SSE streams on one game, then post a
move and time until every stream has received it; print the server's memory.

    .venv/bin/python bench/open_streams.py [--streams 1000]

Starts its own embedded Valkey and one `stakeout serve` process on loopback. A measurement,
not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.embedded import EmbeddedRedis
from tests.conftest import free_port

KEY = "bench-key"


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def main(streams: int) -> None:
    redis = EmbeddedRedis(Path(tempfile.mkdtemp()))
    url = redis.start()
    port = free_port()
    env = {**os.environ, "REDIS_URL": url, "STAKEOUT_API_KEYS": KEY, "PORT": str(port)}
    env["LOG_LEVEL"] = "WARNING"
    server = subprocess.Popen([sys.executable, "-m", "service.cli", "serve"], env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=base, timeout=60) as client:
            for _ in range(100):
                try:
                    if (await client.get("/readyz")).status_code == 200:
                        break
                except httpx.HTTPError:
                    await asyncio.sleep(0.1)
            created = (
                await client.post(
                    "/v1/games",
                    json={"game": "fbi", "seats": [{"type": "human"}, {"type": "human"}]},
                    headers={"Authorization": f"Bearer {KEY}"},
                )
            ).json()
            game_id = created["id"]
            tokens = [s["token"] for s in created["seats"]]
            version = created["version"]
            idle = rss_mib(server.pid)
            limits = httpx.Limits(max_connections=streams + 10)
            got: list[float] = []
            ready = asyncio.Event()
            opened = 0

            async def follow(reader: httpx.AsyncClient) -> None:
                nonlocal opened
                async with reader.stream(
                    "GET", f"/v1/games/{game_id}/stream", params={"after": version}
                ) as response:
                    opened += 1
                    if opened == streams:
                        ready.set()
                    async for line in response.aiter_lines():
                        if line.startswith("id: "):
                            got.append(time.perf_counter())
                            return

            async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as reader:
                tasks = [asyncio.create_task(follow(reader)) for _ in range(streams)]
                await asyncio.wait_for(ready.wait(), 120)
                await asyncio.sleep(1)
                held = rss_mib(server.pid)
                view = (
                    await client.get(
                        f"/v1/games/{game_id}",
                        headers={"Authorization": f"Bearer {tokens[0]}"},
                    )
                ).json()
                seat = view["awaiting"][0]["seat"]
                move = (
                    await client.get(
                        f"/v1/games/{game_id}",
                        headers={"Authorization": f"Bearer {tokens[seat]}"},
                    )
                ).json()["legal"][0]
                sent = time.perf_counter()
                await client.post(
                    f"/v1/games/{game_id}/moves",
                    json=move,
                    headers={"Authorization": f"Bearer {tokens[seat]}"},
                )
                await asyncio.wait_for(asyncio.gather(*tasks), 120)
            print(f"open streams held by one process: {streams}")
            print(f"server RSS: {idle:.0f} MiB idle, {held:.0f} MiB holding them")
            print(f"  ({(held - idle) * 1024 / streams:.1f} KiB per stream)")
            print(f"one move fanned out to all: last stream got it {max(got) - sent:.2f} s later")
    finally:
        server.terminate()
        server.wait(timeout=30)
        redis.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--streams", type=int, default=1000)
    asyncio.run(main(parser.parse_args().streams))
