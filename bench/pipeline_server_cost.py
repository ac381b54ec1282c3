"""What the request-id/access-log/metrics wrapper costs a request under a real server.
Not a test.

    .venv/bin/python bench/pipeline_server_cost.py [--seconds 3] [--rounds 8]

`bench/pipeline_cost.py` prices each layer as ASGI calls in one process, one request after
another: nothing yields to the event loop between requests, so work a layer leaves to the
loop (a write at the end of a turn, a timer) is paid once a batch there, and CPU caches stay
warm for the few functions it repeats. Under a server neither holds. This script serves,
each with one uvicorn process (the settings of `bench/move_path.py`), the bare Litestar app
of that bench and these builds of stakeout:

- ``stakeout``: as `stakeout serve` has it;
- ``no access log``: the wrapper without its access line;
- ``ids only``: the wrapper without its access line and its metrics;
- ``no wrapper``: the app without `service.http.observability`'s wrapper.

It drives ``GET /healthz`` of each with the Node driver (32 connections) in interleaved
rounds and prints the API process's CPU per request (from /proc), median over the rounds,
and the rate. A shared machine's noise moves single rounds by ±20 %: read the medians.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from move_path import (
    BARE_APP,
    measure,
    node,
    npm_install,
    serve,
    served_apps,
)

BUILDS = """
from service.app import app_factory


def no_access():
    app = app_factory()
    app.asgi_handler.access = False
    return app


def ids_only():
    app = app_factory()
    app.asgi_handler.access = False
    app.asgi_handler.metrics = False
    return app


def no_wrapper():
    app = app_factory()
    app.asgi_handler = app.asgi_handler.app  # ObservabilityMiddleware's inner handler
    return app
"""

TARGETS = (
    ("bare Litestar", "bare_app:app", False),
    ("stakeout", "service.app:app_factory", True),
    ("no access log", "builds:no_access", True),
    ("ids only", "builds:ids_only", True),
    ("no wrapper", "builds:no_wrapper", True),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per round and build")
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()
    seconds = str(args.seconds)
    cpu: dict[str, list[float]] = {label: [] for label, _, _ in TARGETS}
    rate: dict[str, list[float]] = {label: [] for label, _, _ in TARGETS}
    with tempfile.TemporaryDirectory(prefix="stakeout-wrapper-") as tmp_name:
        tmp = Path(tmp_name)
        npm_install(tmp, with_bgio=False)
        driver = tmp / "http_load.mjs"
        valkey, env, apps = served_apps(tmp, {"bare_app.py": BARE_APP, "builds.py": BUILDS})
        try:
            with contextlib.ExitStack() as servers:
                sessions = {
                    label: serve(servers, target, 1, factory, env, tmp, cwd=apps)
                    for label, target, factory in TARGETS
                }
                for n in range(args.rounds):
                    print(f"round {n + 1} of {args.rounds} ...", flush=True)
                    for label, (session, base) in sessions.items():
                        got = measure(
                            session,
                            seconds,
                            lambda base=base: node(tmp, driver, "healthz", base, "32", seconds),
                        )
                        requests = got["requests_per_s"] * got["seconds"]
                        cpu[label].append(1e6 * got["cpu_s"] / requests)
                        rate[label].append(got["requests_per_s"])
        finally:
            valkey.stop()
    bare = statistics.median(cpu["bare Litestar"])
    print(f"\nGET /healthz, one uvicorn process each, medians of {args.rounds} rounds")
    print("| build | API CPU µs / request | over bare | req/s |")
    print("|---|---|---|---|")
    for label, _, _ in TARGETS:
        median_cpu = statistics.median(cpu[label])
        print(
            f"| {label} | {median_cpu:.1f} | {median_cpu - bare:+.1f} |"
            f" {statistics.median(rate[label]):,.0f} |"
        )


if __name__ == "__main__":
    main()
