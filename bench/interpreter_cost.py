"""The same stakeout served by different Python interpreters, side by side. Not a test.

    .venv/bin/python bench/interpreter_cost.py --python A --python B [--rounds 6] [--seconds 4]

Each ``--python`` names a virtualenv's interpreter (or any Python with stakeout's
dependencies installed) that serves this checkout: `make` builds the venv on the fastest
Python 3.11+ on PATH (`bench/fastest_python.py`), and this bench is what says whether
that matters for a whole request, not only for the picker's loop. Every interpreter
serves the app with the settings of `bench/move_path.py` (2 API processes by default,
uvloop, httptools, one write an answer, a shared Valkey on a Unix socket); rounds are
interleaved, and each round drives ``GET /healthz`` (32 connections) and the GET view +
POST act loop (32 games) of each. Printed, medians over the rounds: API CPU per request
and per act (from /proc: what the machine's load moves least), the rates and the act
POST's p99.

``--default-gc`` adds, for the first interpreter, the app served without
`service.app.for_serving` (CPython's collector settings: every start-up object in its
generations, a young collection every 700 new objects), to price that too.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from move_path import (
    API_KEY,
    DRIVER,
    measure,
    node,
    npm_install,
    serve,
    served_apps,
)

# The app as `app_factory` builds it, without `for_serving` (its garbage collector settings).
UNFROZEN_APP = """
from service.app import app_from_env as unfrozen
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", action="append", required=True, help="an interpreter")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=4.0, help="per round and load")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--default-gc", action="store_true")
    args = parser.parse_args()
    # The servers run in another folder: a path given relative to this one, or a name on
    # PATH, is made absolute first.
    pythons = [os.path.abspath(shutil.which(python) or python) for python in args.python]
    builds = [(given, "service.app:app_factory", python) for given, python in zip(
        args.python, pythons, strict=True)]  # fmt: skip
    if args.default_gc:
        builds.append((f"{args.python[0]}, default gc", "unfrozen_app:unfrozen", pythons[0]))
    seconds = f"{args.seconds:g}"
    rows: dict[str, list[dict[str, Any]]] = {label: [] for label, _, _ in builds}
    with tempfile.TemporaryDirectory(prefix="stakeout-interpreters-") as tmp_name:
        tmp = Path(tmp_name)
        npm_install(tmp, with_bgio=False)
        driver = tmp / DRIVER.name  # beside its node_modules (an ES module)
        valkey, env, apps = served_apps(tmp, {"unfrozen_app.py": UNFROZEN_APP})
        try:
            with contextlib.ExitStack() as servers:
                served = []
                for label, target, python in builds:
                    session, base = serve(
                        servers, target, args.processes, True, env, tmp, cwd=apps, python=python
                    )
                    node(tmp, driver, "play", base, API_KEY, "32", "2", "get-post")  # warm up
                    served.append((label, session, base))
                for number in range(1, args.rounds + 1):
                    print(f"round {number} of {args.rounds} ...", flush=True)
                    for label, session, base in served:

                        def healthz(base: str = base) -> dict[str, Any]:
                            return node(tmp, driver, "healthz", base, "32", seconds)

                        def play(base: str = base) -> dict[str, Any]:
                            return node(tmp, driver, "play", base, API_KEY, "32", seconds,
                                        "get-post")  # fmt: skip

                        got = {"healthz": measure(session, seconds, healthz)}
                        got["play"] = measure(session, seconds, play)
                        rows[label].append(got)
        finally:
            valkey.stop()
    report(rows, args.processes)


def report(rows: dict[str, list[dict[str, Any]]], processes: int) -> None:
    def med(label: str, pick: Any) -> float:
        return float(statistics.median(pick(r) for r in rows[label]))

    print(f"\n{processes} API processes each; medians of {len(next(iter(rows.values())))} rounds")
    print("| interpreter | /healthz req/s | API CPU µs / request | acts/s (GET + POST) |"
          " API CPU ms / act | act POST p99 ms |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for label in rows:
        hz_rate = med(label, lambda r: r["healthz"]["requests_per_s"])
        hz_cpu = med(label, lambda r: r["healthz"]["cpu_s"] * 1e6 / (
            r["healthz"]["requests_per_s"] * r["healthz"]["seconds"]))  # fmt: skip
        acts = med(label, lambda r: r["play"]["acts_per_s"])
        act_cpu = med(label, lambda r: r["play"]["cpu_s"] * 1e3 / (
            r["play"]["acts_per_s"] * r["play"]["seconds"]))  # fmt: skip
        p99 = med(label, lambda r: r["play"]["act_p99_ms"])
        print(f"| {label} | {hz_rate:,.0f} | {hz_cpu:.1f} | {acts:,.0f} | {act_cpu:.3f} |"
              f" {p99:.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()
