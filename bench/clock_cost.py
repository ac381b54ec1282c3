"""The API's CPU per act without a clock and with one (issue 34), side by side in one run.
Not a test.

    .venv/bin/python bench/clock_cost.py [--acts 2000] [--games 8] [--rounds 3]

The act_profile loop (bench/act_profile.py: concurrent 4-player FBI games, every seat a
client, a GET of the awaited seat's view and a POST of one legal act, called as ASGI with
no socket, on the embedded Valkey), in alternating rounds: games without a clock, then
games with a clock of a day (so no flag falls). Printed: each round's CPU per act, the
medians and their ratio, and the Python calls an act of each (the steadier figure on a
loaded machine: CPU time moves with what else runs). A game with a clock charges its
banks once an act (from the snapshot's awaited seats, worked out once) and shows them in
every view; its deadlines come from the snapshot, with no round trip.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import importlib.util
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.app import create_app
from service.ops.embedded import EmbeddedRedis
from service.settings import Settings

# The act_profile loop, loaded from its file (the benches are scripts, not a package).
_spec = importlib.util.spec_from_file_location(
    "act_profile", Path(__file__).with_name("act_profile.py")
)
if _spec is None or _spec.loader is None:
    raise SystemExit("bench/act_profile.py is missing")
_profile: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_profile)
KEY, Asgi, _table = _profile.KEY, _profile.Asgi, _profile._table

CLOCK = {"initial_seconds": 86400, "increment_seconds": 30, "on_time_out": "bot_seat"}
MODES = (("no clock", None), ("clock", CLOCK))


async def _round(asgi: Any, acts: int, games: int, clock: Any, seed: int) -> float:
    left = [acts]
    cpu0 = time.process_time()
    done = await asyncio.gather(
        *(_table(asgi, left, False, random.Random(seed + i), clock) for i in range(games))
    )
    return float((time.process_time() - cpu0) / sum(d[0] for d in done) * 1000)


async def _calls(asgi: Any, acts: int, games: int, clock: Any) -> float:
    """Python function calls an act (the same seeds for both: the same games)."""
    left, counter = [acts], cProfile.Profile()
    counter.enable()
    done = await asyncio.gather(
        *(_table(asgi, left, False, random.Random(500 + i), clock) for i in range(games))
    )
    counter.disable()
    calls = sum(v[1] for v in pstats.Stats(counter).stats.values())  # type: ignore[attr-defined]
    return float(calls / sum(d[0] for d in done))


async def run(app: Any, acts: int, games: int, rounds: int) -> None:
    asgi = Asgi(app)
    async with app.lifespan():
        for clock in (None, CLOCK):  # warm up both paths
            await _round(asgi, 100, 2, clock, 1)
        figures: dict[str, list[float]] = {"no clock": [], "clock": []}
        for r in range(rounds):
            for name, clock in MODES:
                ms = await _round(asgi, acts, games, clock, 100 * r)
                figures[name].append(ms)
                print(f"round {r + 1}, {name}: CPU {ms:.3f} ms an act")
        counts = {name: await _calls(asgi, 500, games, clock) for name, clock in MODES}
    plain = statistics.median(figures["no clock"])
    timed = statistics.median(figures["clock"])
    print(
        f"median CPU an act: no clock {plain:.3f} ms, clock {timed:.3f} ms, "
        f"ratio {timed / plain:.3f}"
    )
    print(
        f"Python calls an act: no clock {counts['no clock']:,.0f}, clock {counts['clock']:,.0f}, "
        f"ratio {counts['clock'] / counts['no clock']:.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--acts", type=int, default=2000)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp) / "valkey", unix_socket=True)
        url = server.start()
        try:
            sys.stderr = open(os.path.join(tmp, "stderr.log"), "w")  # noqa: SIM115 - until exit
            settings = Settings(
                redis_url=url, api_keys=(KEY,), rate_limit_per_minute=0, max_active_games=0
            )
            asyncio.run(run(create_app(settings), args.acts, args.games, args.rounds))
        finally:
            server.stop()
            sys.stderr = sys.__stderr__


if __name__ == "__main__":
    main()
