"""How many live feeds one API process holds, and what they cost the moves around them.

    .venv/bin/python bench/open_streams.py [--streams 1000] [--games 8] [--seconds 15]

Starts its own embedded Valkey and one `stakeout serve` process on loopback. First a load
phase without feeds: ``--games`` two-seat games played by a client as fast as it can (each
act: the seat's view, then the act), timing every act POST and a `/healthz` probe every
50 ms. Then N SSE streams are opened, spread over the loaded games (so every move fans out
to them), the same load runs again, and one more move on a fresh game is timed to the last
of N streams watching it. Prints p50/p99 of both phases, the ratio, the server's memory and
the Redis connections it holds. A measurement, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
import time
from pathlib import Path

import httpx
import redis as redis_client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.processes import HumanSeat, next_request, service_env, valkey_and_processes

KEY = "bench-key"


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else 0.0


HUMANS2 = [{"type": "human"}, {"type": "human"}]


async def new_game(client: httpx.AsyncClient) -> list[HumanSeat]:
    created = (
        await client.post(
            "/v1/games",
            json={"game": "fbi", "seats": HUMANS2},
            headers={"Authorization": f"Bearer {KEY}"},
        )
    ).json()
    return [HumanSeat(created["id"], i, s["token"]) for i, s in enumerate(created["seats"])]


async def load(
    client: httpx.AsyncClient, games: list[list[HumanSeat]], seconds: float
) -> tuple[list[float], list[float]]:
    """Play every game as fast as one client can for ``seconds``: act times, probe times."""
    acts: list[float] = []
    probes: list[float] = []
    deadline = time.perf_counter() + seconds
    rng = random.Random(5)

    async def player(index: int) -> None:
        while time.perf_counter() < deadline:
            seats = games[index]
            acted = False
            for seat in seats:
                headers = {"Authorization": f"Bearer {seat.token}"}
                seen = (await client.get(f"/v1/games/{seat.game_id}", headers=headers)).json()
                if seen["status"] == "finished":
                    games[index] = await new_game(client)
                    acted = True
                    break
                request = next_request(seat, seen, rng)
                if request is None:
                    continue
                started = time.perf_counter()
                response = await client.post(request[0], json=request[1], headers=headers)
                acts.append(time.perf_counter() - started)
                assert response.status_code == 200, response.text
                acted = True
            if not acted:
                await asyncio.sleep(0.01)

    async def probe() -> None:
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            await client.get("/healthz")
            probes.append(time.perf_counter() - started)
            await asyncio.sleep(0.05)

    await asyncio.gather(probe(), *(player(i) for i in range(len(games))))
    return acts, probes


def redis_connections(url: str) -> tuple[int, int]:
    """Connections to the server (not this one), and how many wait in a blocking XREAD."""
    client = redis_client.Redis.from_url(url)
    try:
        clients = client.client_list()
        return len(clients) - 1, sum(c.get("cmd") == "xread" for c in clients)
    finally:
        client.close()


async def main(streams: int, game_count: int, seconds: float) -> None:
    with valkey_and_processes() as (url, procs):
        served = procs.api(service_env(url, STAKEOUT_API_KEYS=KEY))
        server, base = served.proc, served.base
        async with httpx.AsyncClient(base_url=base, timeout=60) as client:
            games = [await new_game(client) for _ in range(game_count)]
            quiet_acts, quiet_probes = await load(client, games, seconds)
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
            at = {game_id: version}
            for seats in games:
                loaded_id = seats[0].game_id
                at[loaded_id] = (await client.get(f"/v1/games/{loaded_id}")).json()["version"]
            # The feeds are held by another process, so that reading them does not slow the
            # load driver's own event loop: half on the loaded games, half on a fresh game.
            holder = subprocess.Popen(
                [sys.executable, __file__, "--hold", base, json.dumps(at), game_id, str(streams)],
                stdout=subprocess.PIPE,
                text=True,
            )
            assert holder.stdout is not None
            line = await asyncio.to_thread(holder.stdout.readline)
            assert line.strip() == "ready", line
            await asyncio.sleep(1)
            held = rss_mib(server.pid)
            connections = redis_connections(url)
            busy_acts, busy_probes = await load(client, games, seconds)
            view = (
                await client.get(
                    f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {tokens[0]}"}
                )
            ).json()
            seat = view["awaiting"][0]["seat"]
            move = (
                await client.get(
                    f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {tokens[seat]}"}
                )
            ).json()["legal"][0]
            sent = time.time()
            await client.post(
                f"/v1/games/{game_id}/moves",
                json=move,
                headers={"Authorization": f"Bearer {tokens[seat]}"},
            )
            line = await asyncio.to_thread(holder.stdout.readline)
            last_got = float(line.split()[1])
            holder.terminate()
            holder.wait(timeout=60)
            print(f"load: {game_count} games played as fast as one client can, {seconds:g} s")
            print(
                f"  without feeds: {len(quiet_acts)} acts, act POST p50 {pct(quiet_acts, 0.5):.1f}"
                f" ms, p99 {pct(quiet_acts, 0.99):.1f} ms; /healthz p99"
                f" {pct(quiet_probes, 0.99):.1f} ms"
            )
            print(
                f"  with {streams} feeds open: {len(busy_acts)} acts, act POST p50"
                f" {pct(busy_acts, 0.5):.1f} ms, p99 {pct(busy_acts, 0.99):.1f} ms; /healthz p99"
                f" {pct(busy_probes, 0.99):.1f} ms"
            )
            ratio = pct(busy_acts, 0.99) / max(pct(quiet_acts, 0.99), 1e-9)
            print(f"  act p99 with feeds / without: {ratio:.2f} (target: at most 2)")
            print(
                f"Redis connections while holding them: {connections[0]}, of which"
                f" {connections[1]} in a blocking XREAD (the shared readers)"
            )
            print(f"open streams held by one process: {streams}")
            print(f"server RSS: {idle:.0f} MiB idle, {held:.0f} MiB holding them")
            print(f"  ({(held - idle) * 1024 / streams:.1f} KiB per stream)")
            print(
                f"one move fanned out to the {streams - streams // 2} feeds of its game: the"
                f" last got it {last_got - sent:.2f} s later"
            )


async def hold(base: str, at: dict[str, int], fresh: str, streams: int) -> None:
    """The feed holder (a child process): open the feeds, say "ready", and once every feed
    of ``fresh`` got its first event print "got <time of the last>"."""
    others = [g for g in at if g != fresh]
    opened = 0
    ready = asyncio.Event()
    got: list[float] = []

    async def follow(reader: httpx.AsyncClient, watched: str) -> None:
        nonlocal opened
        async with reader.stream(
            "GET", f"/v1/games/{watched}/stream", params={"after": at[watched]}
        ) as response:
            opened += 1
            if opened == streams:
                ready.set()
            async for line in response.aiter_lines():
                if watched == fresh and line.startswith("id: "):
                    got.append(time.time())
                    return

    limits = httpx.Limits(max_connections=streams + 10)
    async with httpx.AsyncClient(base_url=base, timeout=600, limits=limits) as reader:
        watching = streams // 2
        background = [
            asyncio.create_task(follow(reader, others[i % len(others)])) for i in range(watching)
        ]
        timed = [asyncio.create_task(follow(reader, fresh)) for _ in range(streams - watching)]
        await asyncio.wait_for(ready.wait(), 300)
        print("ready", flush=True)
        await asyncio.wait_for(asyncio.gather(*timed), 600)
        print(f"got {max(got)}", flush=True)
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--hold":
        asyncio.run(hold(sys.argv[2], json.loads(sys.argv[3]), sys.argv[4], int(sys.argv[5])))
        sys.exit(0)
    parser = argparse.ArgumentParser()
    parser.add_argument("--streams", type=int, default=1000, help="feeds held open")
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    asyncio.run(main(args.streams, args.games, args.seconds))
