"""The API's own work per act, in one process, without a server. Not a test.

    .venv/bin/python bench/act_profile.py [--acts 3000] [--games 8] [--profile] [--prefer]
        [--lean] [--rate-limit PER_MINUTE] [--presence-seconds 30]

The whole stakeout app (rate limit off unless ``--rate-limit``: that refill a minute, the
default burst, so a bucket's Redis round trip comes as often as in production but no
request is refused; ``--lean``: without the hot-route layer, ``STAKEOUT_HOT_ROUTES=0``;
``--presence-seconds 0``: presence off, to tell its cost from the rest)
is called as ASGI directly, no socket: ``--games``
concurrent 4-player FBI games, every seat a client, each running the loop the Node driver
runs (GET the awaited seat's view, POST one legal act; the act's answer names the seat
awaited next, so one GET an act; ``--prefer``: the POST asks for the view and the GET is
skipped when the same seat acts again). A real Valkey (the embedded one) holds the games.

Printed: this process's CPU time per act (the app's work plus this small driver's: the
driver decodes answers with msgspec and picks moves, a few percent), the count of Python
function calls per act, and with ``--profile`` the functions with the most own time
(cProfile). Wall time on a loaded machine says little; CPU and calls are the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import hashlib
import os
import pstats
import random
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.app import create_app
from service.ops.embedded import EmbeddedRedis
from service.settings import Settings

KEY = "sk_bench"


def _canonical(move: Any) -> str:
    return msgspec.json.encode(move, order="sorted").decode()


class Asgi:
    """Calls an ASGI app as a server would, one request at a time per caller."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def request(
        self, method: str, path: str, token: str, body: bytes = b"", extra: tuple[Any, ...] = ()
    ) -> tuple[int, bytes]:
        headers = [
            (b"host", b"127.0.0.1"),
            (b"authorization", b"Bearer " + token.encode()),
            *extra,
        ]
        if body:
            headers += [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ]
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": b"",
            "headers": headers,
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8000),
            "state": {},
        }
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if sent:
                await asyncio.sleep(3600)
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        status = 0
        chunks: list[bytes] = []

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, send)
        return status, b"".join(chunks)


async def _table(
    asgi: Asgi,
    deadline: list[int],
    prefer: bool,
    rng: random.Random,
    clock: dict[str, Any] | None = None,
) -> list[int]:
    """One game after another until ``deadline[0]`` acts are done in all; returns
    [acts, gets]. ``clock``: the games' clock (bench/clock_cost.py), else none."""
    acts = gets = 0
    extra = ((b"prefer", b"return=representation"),) if prefer else ()
    while deadline[0] > 0:
        status, body = await asgi.request(
            "POST",
            "/v1/games",
            KEY,
            msgspec.json.encode(
                {"game": "fbi", "seats": [{"type": "human"}] * 4}
                | ({"clock": clock} if clock else {})
            ),
        )
        assert status == 201, body
        created = msgspec.json.decode(body)
        game_id, tokens = created["id"], [s["token"] for s in created["seats"]]
        kept: dict[int, dict[str, Any]] = {}
        view: dict[str, Any] | None = None
        awaited: int | None = 0
        while awaited is not None and deadline[0] > 0:
            if view is None or view["you"] != awaited:
                status, body = await asgi.request("GET", f"/v1/games/{game_id}", tokens[awaited])
                gets += 1
                assert status == 200, body
                view = msgspec.json.decode(body)
                if view["status"] != "active":
                    break
            seat = view["you"]
            mine = [a for a in view["awaiting"] if a["seat"] == seat]
            if not mine:  # a new game that another seat opens: read that seat's view
                awaited, view = view["awaiting"][0]["seat"], None
                continue
            action = mine[0]
            if action["action"] == "move":
                path, payload = "moves", rng.choice(view["legal"])
            elif action["action"] == "commit":
                move, salt = rng.choice(view["legal"]), secrets.token_hex(16)
                kept[seat] = {"move": move, "salt": salt}
                text = f"sealed-v1|{game_id}|{action['step']}|{seat}|{_canonical(move)}|{salt}"
                path = "commitments"
                payload = {"commitment": hashlib.sha256(text.encode()).hexdigest()}
            else:
                path, payload = "reveals", kept.pop(seat)
            status, body = await asgi.request(
                "POST",
                f"/v1/games/{game_id}/{path}",
                tokens[seat],
                msgspec.json.encode(payload),
                extra,
            )
            assert status == 200, body
            acts += 1
            deadline[0] -= 1
            answer = msgspec.json.decode(body)
            awaited = answer["awaiting"][0]["seat"] if answer["awaiting"] else None
            view = answer["view"] if prefer else None
    return [acts, gets]


async def run(app: Any, acts: int, games: int, prefer: bool, profile: bool) -> None:
    asgi = Asgi(app)
    async with app.lifespan():
        # Warm up: imports, caches, the first games.
        await asyncio.gather(*(_table(asgi, [50], prefer, random.Random(i)) for i in range(2)))
        left = [acts]
        profiler = cProfile.Profile() if profile else None
        calls = cProfile.Profile()  # counts calls (its own overhead is not in the CPU figure)
        cpu0 = time.process_time()
        if profiler is not None:
            profiler.enable()
        done = await asyncio.gather(
            *(_table(asgi, left, prefer, random.Random(100 + i)) for i in range(games))
        )
        if profiler is not None:
            profiler.disable()
        cpu = time.process_time() - cpu0
        total_acts = sum(d[0] for d in done)
        total_gets = sum(d[1] for d in done)
        # A second, shorter run under the profiler only to count calls per act.
        left = [min(acts, 500)]
        calls.enable()
        counted = await asyncio.gather(
            *(_table(asgi, left, prefer, random.Random(200 + i)) for i in range(games))
        )
        calls.disable()
    counted_acts = sum(d[0] for d in counted)
    stats = pstats.Stats(calls)
    total_calls = sum(v[1] for v in stats.stats.values())  # type: ignore[attr-defined]
    label = "profiled " if profiler is not None else ""
    print(
        f"{total_acts} acts, {total_gets / total_acts:.2f} GETs an act, {games} games"
        f"{', Prefer' if prefer else ''}: {label}CPU {cpu / total_acts * 1000:.3f} ms an act; "
        f"{total_calls / counted_acts:,.0f} Python calls an act"
    )
    if profiler is not None and os.environ.get("DUMP"):
        profiler.dump_stats(os.environ["DUMP"])
    if profiler is not None:
        pstats.Stats(profiler).sort_stats(os.environ.get("SORT", "tottime")).print_stats(
            int(os.environ.get("TOP", "40"))
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--acts", type=int, default=3000)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--prefer", action="store_true")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--lean", action="store_true", help="without the hot-route layer")
    parser.add_argument("--rate-limit", type=int, default=0, help="requests a minute (0: off)")
    parser.add_argument(
        "--presence-seconds", type=int, default=30, help="STAKEOUT_PRESENCE_SECONDS (0: off)"
    )
    parser.add_argument(
        "--tcp", action="store_true", help="reach Valkey over loopback TCP, not its Unix socket"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp) / "valkey", unix_socket=not args.tcp)
        url = server.start()
        try:
            # Access logs as `stakeout serve` writes them (JSON lines), to a file.
            sys.stderr = open(os.path.join(tmp, "stderr.log"), "w")  # noqa: SIM115 - until exit
            from service.telemetry.logs import configure_logging

            configure_logging("INFO")
            settings = Settings(
                redis_url=url,
                api_keys=(KEY,),
                rate_limit_per_minute=args.rate_limit,
                max_active_games=0,
                hot_routes=not args.lean,
                presence_seconds=args.presence_seconds,
            )
            with contextlib.redirect_stdout(sys.__stdout__):
                limit = f"rate limit {args.rate_limit}/min" if args.rate_limit else "no rate limit"
                presence = (
                    f"presence {args.presence_seconds} s"
                    if args.presence_seconds
                    else "no presence"
                )
                print(f"hot routes {'off' if args.lean else 'on'}, {limit}, {presence}")
                asyncio.run(
                    run(create_app(settings), args.acts, args.games, args.prefer, args.profile)
                )
        finally:
            server.stop()
            sys.stderr = sys.__stderr__


if __name__ == "__main__":
    main()
