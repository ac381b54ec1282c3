"""Instructions an API process executes per request, counted by callgrind. Not a test.

    .venv/bin/python bench/request_instructions.py [--requests 2000] [--acts-seconds 20]

On a shared 2-core machine a server's CPU time per request moves by ±20 % between runs of
a few seconds (docs/design-move-path.md), so a change of a few percent cannot be read off
`bench/move_path.py`. ``valgrind --tool=callgrind`` counts the instructions a process runs,
whatever else the machine is doing; this script counts them for one API process under
uvicorn (the same settings as `bench/move_path.py`: uvloop, httptools, one write an
answer), driven by the Node driver over HTTP:

- ``GET /healthz`` of the bare Litestar app that `bench/move_path.py` compares with;
- ``GET /healthz`` of stakeout, with and without its request-id/access-log/metrics wrapper
  (`service.http.observability`), so the wrapper's own share shows;
- ``GET /v1/games/{id}`` of stakeout alone: one seat's view of a game in play, over and
  over (each read still asks the store for what it missed: one round trip);
- the GET view + POST act loop of `bench/move_path.py` (8 games of 4-player FBI), per act;
  and from the two, the act's POST alone (the loop's count less its GETs' share).

Counting starts after a warm-up (``--instr-atstart=no``, then ``callgrind_control``), so
start-up and imports are left out. Instructions are not time: a cache miss costs more than
an instruction, so compare these figures with each other, next to the timed benches.
Needs valgrind (on the machine) and Node with npm (undici is installed into a temporary
folder, as `bench/move_path.py` does).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from move_path import (
    API_KEY,
    BARE_APP,
    free_port,
    npm_install,
    process,
    served_apps,
    uvicorn_args,
    wait_http,
)

# The stakeout app without its outermost wrapper, for the wrapper's own share.
UNWRAPPED_APP = """
from service.app import app_factory


def unwrapped():
    app = app_factory()
    app.asgi_handler = app.asgi_handler.app  # ObservabilityMiddleware's inner handler
    return app
"""

# N GETs of one path over C keep-alive connections (with an Authorization header if given).
COUNTED_GETS = """
import { Pool } from "undici";
const [base, path, n, connections, authorization] = process.argv.slice(2);
const pool = new Pool(base, { connections: Number(connections), pipelining: 1 });
const headers = authorization ? { authorization } : {};
let left = Number(n);
let ok = 0;
async function loop() {
  while (left-- > 0) {
    const r = await pool.request({ method: "GET", path, headers });
    await r.body.text();
    if (r.statusCode === 200) ok += 1;
  }
}
await Promise.all(Array.from({ length: Number(connections) }, loop));
console.log(JSON.stringify({ ok }));
await pool.close();
"""


def node(tmp: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        ["node", *args],
        cwd=tmp,
        env={**os.environ, "NODE_PATH": str(tmp / "node_modules")},
        capture_output=True,
        text=True,
        timeout=1200,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def callgrind(pid: int, *action: str) -> None:
    subprocess.run(["callgrind_control", *action, str(pid)], capture_output=True, check=True)


def counted(out: Path) -> int:
    """The instructions in a callgrind dump's ``totals:`` line (0 when none)."""
    for line in out.read_text().splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
    return 0


def measure(
    tmp: Path,
    env: dict[str, str],
    target: str,
    factory: bool,
    cwd: Path,
    drive: Any,
) -> tuple[int, str]:
    """Instructions the server ``target`` ran while ``drive(base)`` ran, and what it did."""
    port = free_port()
    out = tmp / f"callgrind.{port}"
    valgrind = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={out}",
    ]
    base = f"http://127.0.0.1:{port}"
    with process(valgrind + uvicorn_args(target, port, 1, factory), env, tmp / "log", cwd) as pid:
        wait_http(base + "/healthz", timeout=300)
        drive(base, warm_up=True)
        callgrind(pid, "--instr=on")
        count, what = drive(base, warm_up=False)
        callgrind(pid, "--instr=off")
        callgrind(pid, "--dump")
        time.sleep(1)
    dumps = sorted(tmp.glob(f"callgrind.{port}*"))
    return max(counted(d) for d in dumps) // max(count, 1), what


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--acts-seconds", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="stakeout-instructions-") as tmp_name:
        tmp = Path(tmp_name)
        npm_install(tmp, with_bgio=False)
        (tmp / "gets.mjs").write_text(COUNTED_GETS)
        valkey, env, apps = served_apps(
            tmp, {"bare_app.py": BARE_APP, "unwrapped_app.py": UNWRAPPED_APP}
        )

        def gets(base: str, path: str, warm_up: bool, *authorization: str) -> tuple[int, str]:
            n = 300 if warm_up else args.requests
            ok = node(tmp, "gets.mjs", base, path, str(n), "16", *authorization)["ok"]
            return ok, f"{ok} requests"

        def healthz(base: str, warm_up: bool) -> tuple[int, str]:
            return gets(base, "/healthz", warm_up)

        def views(base: str, warm_up: bool) -> tuple[int, str]:
            # A 4-player FBI game of its own, read by its first seat: a view in play.
            created = httpx.post(
                base + "/v1/games",
                headers={"authorization": f"Bearer {API_KEY}"},
                json={"game": "fbi", "seats": [{"type": "human"}] * 4},
                timeout=30,
            ).json()
            token = created["seats"][0]["token"]
            return gets(base, f"/v1/games/{created['id']}", warm_up, f"Bearer {token}")

        gets_an_act = 1.0  # the play loop's, once it ran

        def play(base: str, warm_up: bool) -> tuple[int, str]:
            nonlocal gets_an_act
            seconds = "5" if warm_up else str(args.acts_seconds)
            got = node(tmp, "http_load.mjs", "play", base, API_KEY, "8", seconds, "get-post")
            acts = round(got["acts_per_s"] * float(seconds))
            gets_an_act = got["gets_per_s"] / got["acts_per_s"]
            return acts, f"{acts} acts, {gets_an_act:.2f} GETs an act"

        rows: list[tuple[str, int, str]] = []
        try:
            for label, target, factory, drive in (
                ("bare Litestar, GET /healthz", "bare_app:app", False, healthz),
                ("stakeout, GET /healthz", "service.app:app_factory", True, healthz),
                ("stakeout without its wrapper, GET /healthz", "unwrapped_app:unwrapped", True,
                 healthz),
                ("stakeout, GET view alone", "service.app:app_factory", True, views),
                ("stakeout, GET view + POST act, per act", "service.app:app_factory", True, play),
            ):  # fmt: skip
                print(f"{label} ...", flush=True)
                count, what = measure(tmp, env, target, factory, apps, drive)
                rows.append((label, count, what))
        finally:
            valkey.stop()
    bare, stakeout, view, act = rows[0][1], rows[1][1], rows[3][1], rows[4][1]
    post = act - round(gets_an_act * view)
    rows.append(
        ("stakeout, the act's POST alone (the act less its GETs)", post, "derived from the two")
    )
    print("\n| server, load | instructions a request (an act) | ÷ bare /healthz | counted over |")
    print("|---|---|---|---|")
    for label, count, what in rows:
        print(f"| {label} | {count:,} | {count / bare:.2f} | {what} |")
    print(
        f"\nbare Litestar ÷ stakeout, /healthz, by instructions: {bare / stakeout:.0%}"
        f" (without the wrapper: {bare / rows[2][1]:.0%})"
    )
    print(
        f"stakeout /healthz ÷ an act, by instructions: {stakeout / act:.0%} (GET view + POST"
        f" act); ÷ the act's POST alone: {stakeout / post:.0%}"
    )


if __name__ == "__main__":
    main()
