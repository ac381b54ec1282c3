"""The move path under load, side by side with boardgame.io 0.50 (issue 13). Not a test.

    .venv/bin/python bench/move_path.py [--seconds 10] [--processes 2] [--skip-bgio]

Starts, on this machine, in temporary folders (nothing is written to the repository):

- a Valkey server (no persistence changes: AOF on, as `make run`) and the stakeout API
  under uvicorn (uvloop + httptools) with ``--processes`` worker processes, the rate limit
  off (``STAKEOUT_RATE_LIMIT_PER_MINUTE=0``) and no quota of active games, JSON access logs on
  (to a file);
- a bare Litestar app (one no-op route) under the same uvicorn settings;
- boardgame.io 0.50 and undici, installed with npm into a temporary folder, and a minimal
  boardgame.io game server written here (a 4-player card game: each turn one move, then
  the turn passes), its own Koa + socket.io server with in-memory storage.

The load driver is Node (`bench/http_load.mjs`, undici), not Python: its own ceiling is
shown against the bare app. Printed, for 8 and 32 concurrent games: stakeout's acts/s and
p50/p99 for the GET-view + POST-act loop (4-player FBI, every seat a client), the POST-only
loop with ``Prefer: return=representation`` (a GET only when another seat acts next), the
ratio of act POSTs/s to the same server's /healthz req/s, boardgame.io's moves/s and p50/p99
(a move's latency: from the move call to the mover's next state update), and /healthz
against the bare Litestar app.

The machine this runs on may be busy: compare ratios within one run, not across runs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
DRIVER = ROOT / "bench" / "http_load.mjs"
API_KEY = "sk_bench"
BGIO_VERSION = "0.50.2"

BARE_APP = """
from litestar import Litestar, get


@get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


app = Litestar([healthz])
"""

CEILING_SERVER = """
require("node:http")
  .createServer((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"status":"ok"}');
  })
  .listen(Number(process.argv[2]), "127.0.0.1");
"""

# A minimal boardgame.io game and server (boardgame.io 0.50 API: moves take one context
# object). Each seat holds five cards; a move plays one to the table and draws; the turn
# passes after one move; the game ends after 400 moves.
BGIO_SERVER = r"""
const { Server, Origins } = require("boardgame.io/server");
const { INVALID_MOVE } = require("boardgame.io/core");

const Cards = {
  name: "cards",
  minPlayers: 4,
  maxPlayers: 4,
  setup: ({ ctx, random }) => {
    const deck = random.Shuffle(Array.from({ length: 60 }, (_, i) => i));
    const hands = {};
    for (let p = 0; p < ctx.numPlayers; p++) hands[p] = deck.splice(0, 5);
    return { deck, hands, table: [], played: 0 };
  },
  turn: { minMoves: 1, maxMoves: 1 },
  moves: {
    play: ({ G, playerID }, index) => {
      const hand = G.hands[playerID];
      if (!Number.isInteger(index) || index < 0 || index >= hand.length) return INVALID_MOVE;
      const [card] = hand.splice(index, 1);
      G.table.push(card);
      if (G.table.length > 8) G.deck.push(G.table.shift());
      hand.push(G.deck.shift());
      G.played += 1;
    },
  },
  endIf: ({ G }) => (G.played >= 400 ? { done: true } : undefined),
};

const server = Server({ games: [Cards], origins: [Origins.LOCALHOST_IN_DEVELOPMENT, /.*/] });
server.run(Number(process.env.PORT));
"""

# The boardgame.io driver: GAMES concurrent matches, every seat its own socket.io client;
# a seat moves as soon as an update says it is its turn.
BGIO_DRIVER = r"""
const { Client } = require("boardgame.io/client");
const { SocketIO } = require("boardgame.io/multiplayer");

const [base, games, seconds] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
// client: false: the move is not run optimistically in the client, so a seat's next update
// is the server's answer.
const Cards = {
  name: "cards",
  moves: { play: { move: () => {}, client: false } },
  turn: { minMoves: 1, maxMoves: 1 },
};
const latencies = [];
let moves = 0;
let finished = 0;
const end = Date.now() + seconds * 1000;

async function post(path, body) {
  const res = await fetch(base + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return res.json();
}

async function match() {
  const { matchID } = await post("/games/cards/create", { numPlayers: 4 });
  const seats = [];
  for (let p = 0; p < 4; p++) {
    const joined = await post(`/games/cards/${matchID}/join`, {
      playerID: String(p),
      playerName: `p${p}`,
    });
    seats.push(joined.playerCredentials);
  }
  return new Promise((resolve) => {
    let stopped = false;
    const clients = seats.map((credentials, p) => {
      const client = Client({
        game: Cards,
        numPlayers: 4,
        matchID,
        playerID: String(p),
        credentials,
        multiplayer: SocketIO({ server: base }),
        debug: false,
      });
      let sent = null; // [stateID, time] of this seat's move in flight
      client.subscribe((state) => {
        if (!state) return;
        if (sent && state._stateID > sent[0]) {
          latencies.push(performance.now() - sent[1]);
          moves += 1;
          sent = null;
        }
        if (state.ctx.gameover || Date.now() > end) {
          if (!stopped) {
            stopped = true;
            if (state.ctx.gameover) finished += 1;
            setImmediate(() => {
              clients.forEach((c) => c.stop());
              resolve();
            });
          }
          return;
        }
        if (state.ctx.currentPlayer === String(p) && sent === null && state.isActive) {
          sent = [state._stateID, performance.now()];
          setImmediate(() => client.moves.play(0));
        }
      });
      client.start();
      return client;
    });
  });
}

async function table() {
  while (Date.now() < end) await match();
}

(async () => {
  const started = performance.now();
  await Promise.all(Array.from({ length: games }, table));
  const elapsed = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  const pct = (q) =>
    sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : null;
  const result = { moves_per_s: moves / elapsed, p50_ms: pct(0.5), p99_ms: pct(0.99) };
  console.log(JSON.stringify({ ...result, games_finished: finished }));
  process.exit(0);
})();
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_http(url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=1).status_code == 200:
                return
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer")


@contextlib.contextmanager
def process(args: list[str], env: dict[str, str], log: Path, cwd: Path = ROOT) -> Iterator[None]:
    with log.open("wb") as out:
        proc = subprocess.Popen(
            args, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        yield
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def uvicorn_args(target: str, port: int, processes: int, factory: bool) -> list[str]:
    args = [sys.executable, "-m", "uvicorn", target, "--host", "127.0.0.1", "--port", str(port)]
    args += ["--workers", str(processes), "--loop", "uvloop", "--http", "httptools"]
    args += ["--no-access-log", "--log-level", "warning"]
    return [*args, "--factory"] if factory else args


def node(npm_dir: Path, script: Path, *args: str, timeout: float = 600) -> dict[str, Any]:
    env = {**os.environ, "NODE_PATH": str(npm_dir / "node_modules")}
    done = subprocess.run(
        ["node", str(script), *args],
        env=env,
        cwd=npm_dir,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{script.name} failed:\n{done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def npm_install(folder: Path, with_bgio: bool) -> None:
    packages = ["undici@6"] + ([f"boardgame.io@{BGIO_VERSION}"] if with_bgio else [])
    # boardgame.io 0.50's socket.io layer (koa-socket-2) builds the server's handler before
    # the Lobby API routes are added; koa-compose 4.2 copies the middleware list when it
    # composes, so those routes would answer 404: pin the version it was released with.
    (folder / "package.json").write_text(
        json.dumps(
            {"name": "stakeout-bench", "private": True, "overrides": {"koa-compose": "4.1.0"}}
        )
    )
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", *packages],
        cwd=folder,
        check=True,
        timeout=600,
    )
    # The driver is an ES module resolving undici from its own folder.
    shutil.copy(DRIVER, folder / DRIVER.name)


def fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--games", default="8,32")
    parser.add_argument("--skip-bgio", action="store_true")
    args = parser.parse_args()
    games = [int(g) for g in args.games.split(",")]
    seconds = str(args.seconds)
    from service.embedded import EmbeddedRedis

    with tempfile.TemporaryDirectory(prefix="stakeout-bench-") as tmp_name:
        tmp = Path(tmp_name)
        print(f"installing undici{'' if args.skip_bgio else ' and boardgame.io'} (npm) ...")
        npm_install(tmp, not args.skip_bgio)
        driver = tmp / DRIVER.name
        valkey = EmbeddedRedis(tmp / "valkey")
        redis_url = valkey.start()
        env = {
            **os.environ,
            "REDIS_URL": redis_url,
            "STAKEOUT_API_KEYS": API_KEY,
            "STAKEOUT_RATE_LIMIT_PER_MINUTE": "0",
            # The bench starts more games than one key may have active by default.
            "STAKEOUT_MAX_ACTIVE_GAMES": "0",
            "LOG_LEVEL": "INFO",
        }
        results: dict[str, Any] = {}
        try:
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            server = uvicorn_args("service.app:app_factory", port, args.processes, True)
            with process(server, env, tmp / "api.log"):
                wait_http(base + "/readyz")
                results["healthz"] = node(tmp, driver, "healthz", base, "32", seconds)
                for g in games:
                    for loop in ("get-post", "prefer"):
                        results[f"{loop}-{g}"] = node(
                            tmp, driver, "play", base, API_KEY, str(g), seconds, loop
                        )
            bare_dir = tmp / "bare"
            bare_dir.mkdir()
            (bare_dir / "bare_app.py").write_text(BARE_APP)
            port = free_port()
            bare = f"http://127.0.0.1:{port}"
            bare_env = {**env, "PYTHONPATH": str(bare_dir)}
            with process(
                uvicorn_args("bare_app:app", port, args.processes, False),
                bare_env,
                tmp / "bare.log",
                cwd=bare_dir,
            ):
                wait_http(bare + "/healthz")
                results["bare"] = node(tmp, driver, "healthz", bare, "32", seconds)
            # The driver's own ceiling: the same loop against Node's bare http server.
            (tmp / "ceiling.cjs").write_text(CEILING_SERVER)
            port = free_port()
            ceiling = f"http://127.0.0.1:{port}"
            with process(
                ["node", "ceiling.cjs", str(port)], dict(os.environ), tmp / "c.log", cwd=tmp
            ):
                wait_http(ceiling + "/healthz")
                results["ceiling"] = node(tmp, driver, "healthz", ceiling, "32", seconds)
            if not args.skip_bgio:
                (tmp / "bgio_server.cjs").write_text(BGIO_SERVER)
                (tmp / "bgio_driver.cjs").write_text(BGIO_DRIVER)
                port = free_port()
                bgio = f"http://127.0.0.1:{port}"
                bgio_env = {**os.environ, "PORT": str(port), "NODE_PATH": str(tmp / "node_modules")}
                with process(["node", "bgio_server.cjs"], bgio_env, tmp / "bgio.log", cwd=tmp):
                    time.sleep(1.5)
                    for g in games:
                        results[f"bgio-{g}"] = node(
                            tmp, tmp / "bgio_driver.cjs", bgio, str(g), seconds
                        )
        finally:
            valkey.stop()
    report(results, games, args.processes)


def report(results: dict[str, Any], games: list[int], processes: int) -> None:
    healthz, bare = results["healthz"], results["bare"]
    print(f"\nstakeout: {processes} API process(es), uvloop + httptools; driver: Node undici")
    print(
        "| load | loop | acts/s | act POST p50 / p99 ms | loop p50 / p99 ms | GETs/act |"
        " act POSTs/s ÷ /healthz | boardgame.io moves/s (p50 / p99 ms) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for g in games:
        theirs = results.get(f"bgio-{g}")
        them = (
            f"{fmt(theirs['moves_per_s'], 0)} ({fmt(theirs['p50_ms'])} / {fmt(theirs['p99_ms'])})"
            if theirs
            else "-"
        )
        for loop in ("get-post", "prefer"):
            r = results[f"{loop}-{g}"]
            gets = r["gets_per_s"] / r["acts_per_s"] if r["acts_per_s"] else 0
            ratio = r["acts_per_s"] / healthz["requests_per_s"]
            print(
                f"| {g} games | {loop} | {fmt(r['acts_per_s'], 0)} |"
                f" {fmt(r['act_p50_ms'])} / {fmt(r['act_p99_ms'])} |"
                f" {fmt(r['loop_p50_ms'])} / {fmt(r['loop_p99_ms'])} | {gets:.2f} |"
                f" {ratio:.0%} | {them} |"
            )
            if r["errors"]:
                print(f"|   | ({r['errors']} non-2xx answers) |")
    print(
        f"\n/healthz: stakeout {fmt(healthz['requests_per_s'], 0)} req/s"
        f" (p99 {fmt(healthz['p99_ms'])} ms); bare Litestar {fmt(bare['requests_per_s'], 0)}"
        f" req/s (p99 {fmt(bare['p99_ms'])} ms):"
        f" {healthz['requests_per_s'] / bare['requests_per_s']:.0%} of bare."
    )
    ceiling = results["ceiling"]
    print(
        f"The driver's ceiling (the same /healthz loop against Node's bare http server):"
        f" {fmt(ceiling['requests_per_s'], 0)} req/s (p99 {fmt(ceiling['p99_ms'])} ms)."
    )
    print(json.dumps(results))


if __name__ == "__main__":
    main()
