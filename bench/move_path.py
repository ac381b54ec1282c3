"""The move path under load, side by side with boardgame.io 0.50 (issues 13, 27). Not a test.

    .venv/bin/python bench/move_path.py [--seconds 20] [--rounds 2] [--processes 2]
        [--configs BUILD[:SERVER[:PROCESSES]],...] [--played fbi,bonnie_clyde]
        [--loops get-post,prefer,socket] [--games 8,32] [--skip-bgio]

Starts, on this machine, in temporary folders (nothing is written to the repository):

- a Valkey server (no persistence changes: AOF on, as `make run`) and the stakeout API
  served in each of the ``--configs`` (default: ``served``, as `stakeout serve` serves
  it): a build of the app (``served``: the app of this checkout; ``lean``: the same
  without its hot-route layer, ``STAKEOUT_HOT_ROUTES=0``; ``limited`` and
  ``lean_limited``: those two with the rate limit on, at a rate no loop reaches;
  ``checkout``: the app of the checkout ``--checkout PATH`` names, to compare versions
  side by side; ``run``: a whole `stakeout run` as `make run` has it, with an embedded
  Valkey, its workers and its multiprocess metrics of its own, ``STAKEOUT_API_PROCESSES``
  the configuration's count), an
  ASGI server (``uvicorn``: uvloop + httptools, an answer written at once,
  `service/http/protocol.py`, as `stakeout serve` has it; ``granian``: uvloop, HTTP/1.1)
  and a count of API processes (``--processes`` unless the item names one), each with the
  rate limit off (``STAKEOUT_RATE_LIMIT_PER_MINUTE=0``, but for the limited builds), no
  quota of active games and JSON access logs on (to a file);
- a bare Litestar app (one no-op route) under uvicorn, with the first configuration's
  process count;
- boardgame.io 0.50, undici and ws, installed with npm into a temporary folder, and a minimal
  boardgame.io game server written here (a 4-player card game: each turn one move, then
  the turn passes), its own Koa + socket.io server with in-memory storage.

The load driver is Node (`bench/http_load.mjs`, undici and ws), not Python: its own ceiling
is shown against the bare app, and the socket loop's against a stand-in server doing no game
work (`bench/socket_ceiling.mjs`, pushing views the size of a real one). Every seat is a
client with a keep-alive connection of its own, as a player's device is and as each
boardgame.io seat has its own socket (the default, ``--connections seat``); ``--connections
shared`` sends every game's requests over one shared pool instead (a seat's GET and POST may
then reach different API processes), and ``both`` measures the two side by side. Printed,
for 8 and 32 concurrent games and each configuration: stakeout's acts/s and p50/p99 for the
GET-view + POST-act loop (4-player FBI, every seat a client), the POST-only loop with
``Prefer: return=representation`` (a GET only when another seat acts next), both loops again
on 4-player Bonnie and Clyde (``--played``: there a seat acts several times in a row, so the
``Prefer`` loop skips most GETs; in FBI it skips few), the socket loop (``--loops socket``:
every seat one WebSocket to ``GET /v1/games/{id}/play``, its act sent when a pushed view
awaits it, no HTTP request but the game's creation; its latencies: act to answer, and act to
the mover's next view), the ratio of act POSTs/s to the same server's /healthz req/s,
boardgame.io's moves/s and p50/p99 (a move's latency: from the move call to the mover's next
state update), and /healthz against the bare Litestar app; with several configurations, a
table of each against the first.

All servers run for the whole bench, and every measurement is taken in ``--rounds`` slices
(``--seconds`` split among them) interleaved with the others: each loop is measured on
every configuration back to back (in the other order every other round), so that a shared
machine's load, which moves over minutes, hits them alike; each ratio is taken within a
round, and the medians over the rounds are printed. Next to the rates: the CPU time the API
processes spent (all of them, from /proc, the server's own threads and processes included)
per act and per /healthz request, a figure the machine's load moves much less than a rate;
"by CPU" is the act-to-/healthz ratio from those (API CPU per /healthz request ÷ API CPU
per act).

The machine this runs on may be busy: compare ratios within one run, not across runs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import httpx

ROOT = Path(__file__).resolve().parent.parent
DRIVER = ROOT / "bench" / "http_load.mjs"
# The socket loop's ceiling: a stand-in server doing no game work (bench/socket_ceiling.mjs).
SOCKET_CEILING = ROOT / "bench" / "socket_ceiling.mjs"
# `stakeout serve`'s HTTP protocol, by a shim on the apps' path (it moved between versions).
HTTP_PROTOCOL = "served_protocol:OneWriteProtocol"
PROTOCOL_SHIM = """
try:
    from service.http.protocol import OneWriteProtocol
except ImportError:  # a checkout from before the layers (issue 27)
    from service.http_protocol import OneWriteProtocol
"""
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
def process(args: list[str], env: dict[str, str], log: Path, cwd: Path = ROOT) -> Iterator[int]:
    """A server in a session of its own; yields the session id (its processes' CPU)."""
    with log.open("wb") as out:
        proc = subprocess.Popen(
            args, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        yield proc.pid
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def uvicorn_args(
    target: str, port: int, processes: int, factory: bool, python: str = sys.executable
) -> list[str]:
    args = [python, "-m", "uvicorn", target, "--host", "127.0.0.1", "--port", str(port)]
    # The same HTTP protocol for both apps: `stakeout serve`'s (httptools, an answer's head
    # and body in one write: service/http/protocol.py).
    args += ["--workers", str(processes), "--loop", "uvloop", "--http", HTTP_PROTOCOL]
    # As `stakeout serve` has it (stakeout/cli.py): no X-Forwarded-For rewriting by uvicorn,
    # no ``server`` header.
    args += ["--no-access-log", "--no-proxy-headers", "--no-server-header"]
    args += ["--ws", "websockets-sansio"]  # the play sockets' protocol, as stakeout serves it
    args += ["--log-level", "warning"]
    return [*args, "--factory"] if factory else args


def granian_args(
    target: str, port: int, processes: int, factory: bool, python: str = sys.executable
) -> list[str]:
    """granian serving ``target`` as uvicorn_args does: ASGI with its lifespan, uvloop,
    HTTP/1.1 only, no websockets, no access log of its own (the app writes one)."""
    args = [python, "-m", "granian", target, "--interface", "asgi", "--host", "127.0.0.1"]
    args += ["--port", str(port), "--workers", str(processes), "--loop", "uvloop"]
    args += ["--http", "1", "--no-ws", "--no-access-log", "--log-level", "warning"]
    return [*args, "--factory"] if factory else args


SERVERS = {"uvicorn": uvicorn_args, "granian": granian_args}


def serve(
    servers: contextlib.ExitStack,
    target: str,
    processes: int,
    factory: bool,
    env: dict[str, str],
    folder: Path,
    cwd: Path = ROOT,
    python: str = sys.executable,
    ready: str = "/healthz",
    server: str = "uvicorn",
) -> tuple[int, str]:
    """Serve ``target`` with ``server`` (`uvicorn_args` or `granian_args`) for as long as
    ``servers`` lasts (its log in ``folder``); its session and base URL, once ``ready``
    answers."""
    port = free_port()
    argv = SERVERS[server](target, port, processes, factory, python)
    session = servers.enter_context(process(argv, env, folder / f"{port}.log", cwd))
    base = f"http://127.0.0.1:{port}"
    wait_http(base + ready)
    return session, base


def served_apps(tmp: Path, modules: dict[str, str]) -> tuple[Any, dict[str, str], Path]:
    """For the benches that serve builds of the app side by side: a Valkey on a Unix socket
    (as `stakeout run` has it, started), the API's environment (rate limit and the quota of
    active games off, JSON access logs on) and a folder holding ``modules`` (file name:
    source) on its ``PYTHONPATH``, ahead of the repository."""
    from service.ops.embedded import EmbeddedRedis

    apps = tmp / "apps"
    apps.mkdir()
    for name, source in modules.items():
        (apps / name).write_text(source)
    valkey = EmbeddedRedis(tmp / "valkey", unix_socket=True)
    env = {
        **os.environ,
        "REDIS_URL": valkey.start(),
        "STAKEOUT_API_KEYS": API_KEY,
        "STAKEOUT_RATE_LIMIT_PER_MINUTE": "0",
        # The benches start more games than one key may have active by default.
        "STAKEOUT_MAX_ACTIVE_GAMES": "0",
        "LOG_LEVEL": "INFO",
        "PYTHONPATH": os.pathsep.join((str(apps), str(ROOT))),
    }
    return valkey, env, apps


def npm_env(npm_dir: Path) -> dict[str, str]:
    return {**os.environ, "NODE_PATH": str(npm_dir / "node_modules")}


def view_bytes(base: str, game: str) -> int:
    """The size of a seat's view of a new ``game`` (its JSON), as the server answers it."""
    with httpx.Client(base_url=base, timeout=10) as http:
        body = {"game": game, "seats": [{"type": "human"}] * 4}
        created = http.post("/v1/games", json=body, headers={"authorization": f"Bearer {API_KEY}"})
        token = created.raise_for_status().json()["seats"][0]["token"]
        view = http.get(
            f"/v1/games/{created.json()['id']}", headers={"authorization": f"Bearer {token}"}
        )
        return len(view.raise_for_status().content)


def node(npm_dir: Path, script: Path, *args: str, timeout: float = 600) -> dict[str, Any]:
    env = npm_env(npm_dir)
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
    packages = ["undici@6", "ws@8"] + ([f"boardgame.io@{BGIO_VERSION}"] if with_bgio else [])
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
    # The driver is an ES module resolving undici and ws from its own folder.
    shutil.copy(DRIVER, folder / DRIVER.name)
    shutil.copy(SOCKET_CEILING, folder / SOCKET_CEILING.name)


def fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def cpu_seconds(session: int) -> float:
    """User + system CPU of every live API process of ``session`` (a server and its
    processes; of a `stakeout run`, all but its workers and its embedded Valkey)."""
    return session_cpu(session)["api"]


def session_cpu(session: int) -> dict[str, float]:
    """User + system CPU of every live process of ``session``, by role: ``store`` (a Valkey
    server), ``workers`` (`stakeout worker` processes, as `stakeout run` starts them) and
    ``api`` (the rest: the API processes and the process serving or supervising them)."""
    ticks = {"api": 0, "workers": 0, "store": 0}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[3]) != session:  # the session id (processes start one each)
                continue
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            role = (
                "store"
                if any(b"valkey" in a.rsplit(b"/", 1)[-1] for a in argv[:1])
                else "workers"
                if b"worker" in argv
                else "api"
            )
            ticks[role] += int(fields[11]) + int(fields[12])
    return {role: n / os.sysconf("SC_CLK_TCK") for role, n in ticks.items()}


def process_cpu_seconds(pid: int | None) -> float:
    """User + system CPU of one process (0 when it is not known)."""
    if pid is None:
        return 0.0
    with contextlib.suppress(OSError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return 0.0


def store_pid_in(folder: Path) -> int:
    """The Valkey server started for ``folder`` (a `stakeout run`'s data folder)."""
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if not entry.name.isdigit() or b"valkey" not in (entry / "cmdline").read_bytes():
                continue
            where = str(folder.resolve()).encode()
            cwd = Path(os.readlink(entry / "cwd"))
            if where in (entry / "cmdline").read_bytes() or cwd.is_relative_to(folder.resolve()):
                return int(entry.name)
    raise RuntimeError(f"no Valkey server in {folder}")


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine spent busy (every core; /proc/stat, idle and iowait out)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def measure(session: int, seconds: str, run: Any, store_pid: int | None = None) -> dict[str, Any]:
    """``run()``'s result, with the CPU seconds used meanwhile by the server ``session``
    (``cpu_s``), the store process (``store_cpu_s``), the driver (``driver_cpu_s``: this
    process's finished children) and the whole machine (``machine_cpu_s``)."""
    before = session_cpu(session)
    store_before = process_cpu_seconds(store_pid)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    machine_before = machine_busy_seconds()
    result: dict[str, Any] = run()
    after_cpu = session_cpu(session)
    result["cpu_s"] = after_cpu["api"] - before["api"]
    # A `stakeout run` (build ``run``): its own Valkey and workers are in its session.
    result["workers_cpu_s"] = after_cpu["workers"] - before["workers"]
    result["store_cpu_s"] = (
        process_cpu_seconds(store_pid) - store_before
        if store_pid is not None
        else after_cpu["store"] - before["store"]
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result["driver_cpu_s"] = (after.ru_utime + after.ru_stime) - (
        children.ru_utime + children.ru_stime
    )
    result["machine_cpu_s"] = machine_busy_seconds() - machine_before
    result["seconds"] = float(seconds)
    return result


def median(values: list[float | None]) -> float | None:
    known = sorted(v for v in values if v is not None)
    if not known:
        return None
    middle = len(known) // 2
    return known[middle] if len(known) % 2 else (known[middle - 1] + known[middle]) / 2


# The builds of the app a configuration serves (``--configs``), each a factory made as
# `service.app.app_factory` makes the served app: ``served``, this checkout's app as served.
# (Runs of the fast lane, since deleted, and of the lean handlers that replaced it: git's
# history of this file and docs/design-move-path.md.)
BUILDS = """
import logging

from service.app import create_app, for_serving
from service.settings import Settings
from service.telemetry.logs import configure_logging


def served():
    settings = Settings.from_env()
    if not logging.getLogger().handlers:
        configure_logging(settings.log_level)
    return for_serving(create_app(settings))


def checkout():
    # Another checkout's app as it serves itself (``--checkout``: its folder is on the path).
    from service.app import app_factory

    return app_factory()


def lean():
    # This checkout's app as served, without its hot-route layer (STAKEOUT_HOT_ROUTES=0).
    import os

    os.environ["STAKEOUT_HOT_ROUTES"] = "0"
    return served()


def limited():
    # ``served`` with the rate limit on (the default burst, so a bucket's Redis round trip
    # comes as often as in production) at a refill no loop reaches: nothing is refused.
    import os

    os.environ["STAKEOUT_RATE_LIMIT_PER_MINUTE"] = "10000000"
    return served()


def lean_limited():
    # ``lean`` with the rate limit on, as ``limited``.
    import os

    os.environ["STAKEOUT_RATE_LIMIT_PER_MINUTE"] = "10000000"
    return lean()
"""
BUILD_NAMES = ("served", "checkout", "lean", "limited", "lean_limited", "run")


class Config(NamedTuple):
    """One way of serving stakeout: the app's build, the ASGI server, the API processes."""

    build: str
    server: str
    processes: int

    @property
    def label(self) -> str:
        return f"{self.build}/{self.server}/{self.processes}"


def parse_configs(text: str, processes: int) -> list[Config]:
    """``BUILD[:SERVER[:PROCESSES]]`` items, comma-separated; what an item leaves out is
    ``served``, ``uvicorn`` and ``processes``."""
    configs = []
    for item in text.split(","):
        build, server, count, *extra = [*item.strip().split(":"), "", "", ""][:4]
        if (
            any(extra)
            or (build or "served") not in BUILD_NAMES
            or (server or "uvicorn") not in SERVERS
        ):
            raise ValueError(f"--configs: {item!r} is not BUILD[:SERVER[:PROCESSES]]")
        configs.append(Config(build or "served", server or "uvicorn", int(count or processes)))
    if len({c.label for c in configs}) != len(configs):
        raise ValueError("--configs: a configuration is named twice")
    return configs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="per measurement, in all")
    parser.add_argument("--rounds", type=int, default=2, help="slices of each, interleaved")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--configs",
        default="served",
        help="ways of serving stakeout, measured side by side: BUILD[:SERVER[:PROCESSES]],"
        " comma-separated (BUILD: served, lean, limited, lean_limited, checkout; SERVER:"
        " uvicorn, granian; the first is the one the others are compared with)",
    )
    parser.add_argument("--games", default="8,32")
    parser.add_argument("--skip-bgio", action="store_true")
    parser.add_argument("--connections", choices=("seat", "shared", "both"), default="seat")
    parser.add_argument(
        "--played",
        default=",".join(PLAYED),
        help="the games stakeout's loops play (fbi first: boardgame.io is compared with it)",
    )
    parser.add_argument(
        "--loops",
        default="get-post,prefer,socket",
        help="the stakeout loops: get-post, prefer, socket",
    )
    parser.add_argument(
        "--report", type=Path, help="print the report of a run's saved output again, run nothing"
    )
    parser.add_argument(
        "--worker",
        action="store_true",
        help="run a game worker too (its dispatcher follows up the acts) and print the "
        "outbox's backlog while the loops ran",
    )
    parser.add_argument(
        "--checkout",
        type=Path,
        help="another checkout of stakeout (its folder), served by the build `checkout`: "
        "compare versions side by side (its dependencies must be installed here)",
    )
    args = parser.parse_args()
    try:
        configs = parse_configs(args.configs, args.processes)
    except ValueError as exc:
        parser.error(str(exc))
    bench = Bench(
        configs=configs,
        games=[int(g) for g in args.games.split(",")],
        loops=_loops(
            ("seat", "shared") if args.connections == "both" else (args.connections,),
            tuple(args.played.split(",")),
            tuple(args.loops.split(",")),
        ),
        seconds=str(args.seconds / args.rounds),
        with_bgio=not args.skip_bgio,
        checkout=args.checkout.resolve() if args.checkout else None,
        worker=args.worker,
    )
    if args.report is not None:  # a run printed before: its last line
        saved = json.loads(args.report.read_text().strip().splitlines()[-1])
        bench.configs = parse_configs(",".join(saved["configs"]), args.processes)
        bench.games, bench.with_bgio = saved["games"], saved["with_bgio"]
        bench.loops = [(c, lp, g) for c, lp, g in saved["loops"]]
        bench.sockets = any(lp == "socket" for _, lp, _ in bench.loops)
        bench.view_bytes = saved.get("view_bytes", 0)
        report(saved["rounds"], bench)
        return
    rounds = bench.run(args.rounds)
    report(rounds, bench)
    if bench.lags:
        lags = sorted(bench.lags)
        print(
            f"outbox backlog while the loops ran ({len(lags)} samples, every 0.25 s): median "
            f"{lags[len(lags) // 2]}, p99 {lags[int(len(lags) * 0.99)]}, max {lags[-1]} changes"
        )
    if bench.not_ready:
        print(f"/readyz not ready in {len(bench.not_ready)} samples: {sorted(bench.not_ready)}")
    # The figures of every round, with what `--report` needs to print them again.
    labels = [f"{c.build}:{c.server}:{c.processes}" for c in bench.configs]
    meta = {"configs": labels, "games": bench.games, "loops": bench.loops}
    meta["view_bytes"] = bench.view_bytes
    print(json.dumps({**meta, "with_bgio": bench.with_bgio, "rounds": rounds}))


# The games stakeout's loops play. FBI is the one compared with boardgame.io; in 4-player
# FBI the next act is nearly always another seat's, so `Prefer` saves few GETs there. In
# Bonnie and Clyde a seat acts several times in a row (draw, meld, discard): about 60 % of
# its acts are by the seat that acted last, the POST-only loop `Prefer` is for.
PLAYED = ("fbi", "bonnie_clyde")


def _loops(
    connections: tuple[str, ...], played: tuple[str, ...], loops: tuple[str, ...]
) -> list[tuple[str, str, str]]:
    """The stakeout loops measured: (connections, loop, game), per-seat connections first."""
    return [
        (conn, loop, game)
        for conn in connections
        for game in played
        for loop in loops
        if (conn == "seat" or game == played[0]) and (conn == "seat" or loop != "socket")
    ]


def _key(config: Config, loop: str, conn: str, games: int, game: str) -> str:
    return f"{config.label} {game}-{loop}-{conn}-{games}"


class Bench:
    """Every server up for the whole run; measurements interleaved round by round. (Plain
    classes: tests/test_benches_import.py loads this file outside ``sys.modules``, where a
    dataclass cannot be made.)"""

    def __init__(
        self,
        configs: list[Config],
        games: list[int],
        loops: list[tuple[str, str, str]],
        seconds: str,
        with_bgio: bool,
        checkout: Path | None = None,
        worker: bool = False,
    ) -> None:
        self.configs, self.games, self.loops = configs, games, loops
        self.seconds, self.with_bgio = seconds, with_bgio
        self.checkout, self.worker = checkout, worker
        self.lags: list[int] = []  # the outbox's backlog, sampled while the loops ran
        self.not_ready: list[int] = []  # the statuses of /readyz's samples other than 200
        self.url: dict[str, str] = {}
        self.sessions: dict[str, int] = {}
        self.store_pids: dict[str, int] = {}  # the configurations with a Valkey of their own
        self.sockets = any(loop == "socket" for _, loop, _ in loops)
        self.view_bytes = 0  # a real view's JSON, for the socket loop's stand-in server

    def run(self, rounds: int) -> list[dict[str, Any]]:
        results: list[dict[str, Any]] = []
        with tempfile.TemporaryDirectory(prefix="stakeout-bench-") as tmp_name:
            tmp = Path(tmp_name)
            print(f"installing undici{' and boardgame.io' if self.with_bgio else ''} (npm) ...")
            npm_install(tmp, self.with_bgio)
            modules = {
                "bare_app.py": BARE_APP,
                "builds.py": BUILDS,
                "served_protocol.py": PROTOCOL_SHIM,
            }
            valkey, env, apps = served_apps(tmp, modules)
            try:
                with contextlib.ExitStack() as servers:
                    self._start(servers, tmp, env, apps)
                    for n in range(rounds):
                        print(f"round {n + 1} of {rounds} ...", flush=True)
                        # Every other round the configurations go in the other order.
                        order = self.configs if n % 2 == 0 else self.configs[::-1]
                        results.append(self._round(tmp, order, valkey.pid))
            finally:
                valkey.stop()
        return results

    def _start(
        self, servers: contextlib.ExitStack, tmp: Path, env: dict[str, str], apps: Path
    ) -> None:
        for config in self.configs:
            if config.build == "run":
                self._start_run(servers, tmp, env, config)
                continue
            where = self.checkout if config.build == "checkout" else ROOT
            if where is None:
                raise ValueError("the checkout build needs --checkout PATH")
            build_env = {**env, "PYTHONPATH": os.pathsep.join((str(apps), str(where)))}
            self.sessions[config.label], self.url[config.label] = serve(
                servers, f"builds:{config.build}", config.processes, True, build_env, tmp,
                cwd=where, ready="/readyz", server=config.server,
            )  # fmt: skip
        first = self.configs[0].processes
        _, self.url["bare"] = serve(servers, "bare_app:app", first, False, env, tmp, cwd=apps)
        if self.worker:  # a game worker: its dispatcher follows up every act of the loops
            argv = [sys.executable, "-m", "stakeout.cli", "worker"]
            servers.enter_context(process(argv, env, tmp / "worker.log", ROOT))
        ports = {name: free_port() for name in ("ceiling", "bgio", "socket ceiling")}
        self.url.update({name: f"http://127.0.0.1:{port}" for name, port in ports.items()})
        (tmp / "ceiling.cjs").write_text(CEILING_SERVER)
        ceiling = ["node", "ceiling.cjs", str(ports["ceiling"])]
        servers.enter_context(process(ceiling, dict(os.environ), tmp / "c.log", cwd=tmp))
        if self.sockets:  # pushing views the size of a real one
            self.view_bytes = view_bytes(self.url[self.configs[0].label], self.loops[0][2])
            stand_in = ["node", SOCKET_CEILING.name, str(ports["socket ceiling"])]
            stand_in.append(str(self.view_bytes))
            servers.enter_context(process(stand_in, npm_env(tmp), tmp / "sc.log", cwd=tmp))
        if self.with_bgio:
            (tmp / "bgio_server.cjs").write_text(BGIO_SERVER)
            (tmp / "bgio_driver.cjs").write_text(BGIO_DRIVER)
            bgio_env = {
                **os.environ,
                "PORT": str(ports["bgio"]),
                "NODE_PATH": str(tmp / "node_modules"),
            }
            self.sessions["bgio"] = servers.enter_context(
                process(["node", "bgio_server.cjs"], bgio_env, tmp / "bgio.log", cwd=tmp)
            )
        wait_http(self.url["ceiling"] + "/healthz")
        if self.sockets:
            wait_http(self.url["socket ceiling"] + "/healthz")
        time.sleep(1.5)  # boardgame.io's server
        driver = tmp / DRIVER.name
        for config in self.configs:  # warm up: every process loads the code paths and games
            node(tmp, driver, "play", self.url[config.label], API_KEY, "8", "2", "get-post")
            if self.sockets:
                node(tmp, driver, "play", self.url[config.label], API_KEY, "8", "2", "socket")

    def _start_run(
        self, servers: contextlib.ExitStack, tmp: Path, env: dict[str, str], config: Config
    ) -> None:
        """The build ``run``: `stakeout run` as `make run` has it (its own embedded Valkey on
        a Unix socket with AOF on, its workers, multiprocess metrics, ``config.processes``
        API processes under ``config.server``), with the bench's API key, no rate limit and
        no quota of active games."""
        if config.server != "uvicorn":
            raise ValueError("the build run serves with uvicorn (STAKEOUT_API_SERVER)")
        port = free_port()
        folder = tmp / f"run-{config.processes}"
        run_env = {k: v for k, v in env.items() if k not in ("REDIS_URL", "PYTHONPATH")}
        run_env.update(
            PORT=str(port),
            STAKEOUT_DATA_DIR=str(folder),
            STAKEOUT_API_PROCESSES=str(config.processes),
            STAKEOUT_API_SERVER=config.server,
        )
        argv = [sys.executable, "-m", "stakeout.cli", "run"]
        log = tmp / f"run-{config.processes}.log"
        self.sessions[config.label] = servers.enter_context(process(argv, run_env, log))
        self.url[config.label] = f"http://127.0.0.1:{port}"
        wait_http(self.url[config.label] + "/readyz", timeout=120)
        # The embedded Valkey runs in a session of its own (service/ops/embedded.py).
        self.store_pids[config.label] = store_pid_in(folder)

    @contextlib.contextmanager
    def _sampling_lag(self, config: Config) -> Iterator[None]:
        """With a worker: the outbox's backlog (``/readyz``'s ``outbox_lag`` plus
        ``outbox_pending``) every quarter second while a loop of ``config`` runs."""
        if not self.worker or config.build != "served":
            yield
            return
        done = threading.Event()

        def sample() -> None:
            with httpx.Client(timeout=5) as http:
                while not done.wait(0.25):
                    answer = http.get(self.url[config.label] + "/readyz")
                    if answer.status_code != 200:  # not ready: counted, and printed
                        self.not_ready.append(answer.status_code)
                        continue
                    health = answer.json()
                    self.lags.append(health["outbox_lag"] + health["outbox_pending"])

        thread = threading.Thread(target=sample, daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()

    def _round(self, tmp: Path, order: list[Config], store_pid: int | None) -> dict[str, Any]:
        got: dict[str, Any] = {}
        driver, seconds = tmp / DRIVER.name, self.seconds
        for config in order:
            url = self.url[config.label]
            got[f"{config.label} healthz"] = measure(
                self.sessions[config.label],
                seconds,
                lambda url=url: node(tmp, driver, "healthz", url, "32", seconds),
            )
        got["bare"] = node(tmp, driver, "healthz", self.url["bare"], "32", seconds)
        got["ceiling"] = node(tmp, driver, "healthz", self.url["ceiling"], "32", seconds)
        for g in self.games if self.sockets else ():  # the socket loop's driver alone
            stand_in = self.url["socket ceiling"]
            got[f"socket ceiling-{g}"] = node(
                tmp, driver, "play", stand_in, API_KEY, str(g), seconds, "socket"
            )
        for g in self.games:
            for conn, loop, game in self.loops:
                for config in order:
                    args = (
                        "play",
                        self.url[config.label],
                        API_KEY,
                        str(g),
                        seconds,
                        loop,
                        conn,
                        game,
                    )
                    with self._sampling_lag(config):
                        got[_key(config, loop, conn, g, game)] = measure(
                            self.sessions[config.label],
                            seconds,
                            lambda args=args: node(tmp, driver, *args),
                            self.store_pids.get(config.label, store_pid),
                        )
            if self.with_bgio:
                got[f"bgio-{g}"] = measure(
                    self.sessions["bgio"],
                    seconds,
                    lambda g=g: node(
                        tmp, tmp / "bgio_driver.cjs", self.url["bgio"], str(g), seconds
                    ),
                )
        return got


class Figures:
    """Medians over the rounds; every ratio is taken within a round, then the median."""

    def __init__(self, rounds: list[dict[str, Any]]) -> None:
        self.rounds = rounds

    def med(self, key: str, name: str) -> float | None:
        return median([r[key].get(name) for r in self.rounds if key in r])

    def ratio(self, top: str, top_field: str, bottom: str, bottom_field: str) -> float | None:
        return median(
            [
                r[top][top_field] / r[bottom][bottom_field]
                for r in self.rounds
                if top in r and bottom in r and r[bottom][bottom_field]
            ]
        )

    def cpu_ms(self, key: str, count: str) -> float | None:
        """API CPU (all its processes) per unit of ``count`` (a rate): ms."""
        return median([self._cpu_ms(r[key], count) for r in self.rounds if key in r])

    def cpu_ratio(self, top: str, bottom: str, count: str) -> float | None:
        """``top``'s API CPU per unit against ``bottom``'s, round by round."""
        values: list[float | None] = []
        for r in self.rounds:
            a, b = self._cpu_ms(r[top], count), self._cpu_ms(r[bottom], count)
            values.append(a / b if a is not None and b else None)
        return median(values)

    @staticmethod
    def _cpu_ms(got: dict[str, Any], count: str) -> float | None:
        elapsed, units = got.get("cpu_s"), got[count] * float(got.get("seconds", 1))
        return None if elapsed is None or not units else 1000 * elapsed / units

    def per(self, key: str, cpu_field: str, count: str) -> float | None:
        """ms of ``cpu_field`` CPU per unit of ``count``."""
        return median(
            [
                1000 * r[key][cpu_field] / (r[key][count] * r[key]["seconds"])
                for r in self.rounds
                if key in r and r[key].get(cpu_field) is not None and r[key][count]
            ]
        )


def report(rounds: list[dict[str, Any]], bench: Bench) -> None:
    figures = Figures(rounds)
    print(
        f"\ndriver: Node undici; medians of {len(rounds)} interleaved rounds; uvicorn with"
        " uvloop + httptools (one write an answer), granian with uvloop"
    )
    for config in bench.configs:
        _config_table(figures, bench, config)
    if len(bench.configs) > 1:
        _side_by_side(figures, bench)
    _where_the_cpu_went(figures, bench)
    for config in bench.configs:
        healthz = f"{config.label} healthz"
        to_bare = figures.ratio(healthz, "requests_per_s", "bare", "requests_per_s")
        print(
            f"/healthz {config.label}: {fmt(figures.med(healthz, 'requests_per_s'), 0)} req/s"
            f" (p99 {fmt(figures.med(healthz, 'p99_ms'))} ms, API CPU"
            f" {fmt(figures.cpu_ms(healthz, 'requests_per_s'), 3)} ms a request):"
            f" {fmt(100 * to_bare if to_bare else None, 0)} % of bare Litestar's"
        )
    print(
        f"bare Litestar /healthz: {fmt(figures.med('bare', 'requests_per_s'), 0)} req/s"
        f" (p99 {fmt(figures.med('bare', 'p99_ms'))} ms). The driver's ceiling (the same"
        f" /healthz loop against Node's bare http server):"
        f" {fmt(figures.med('ceiling', 'requests_per_s'), 0)} req/s"
        f" (p99 {fmt(figures.med('ceiling', 'p99_ms'))} ms)."
    )
    for g in bench.games if bench.sockets else ():
        key = f"socket ceiling-{g}"
        print(
            f"The socket loop's ceiling at {g} games (the same driver against a stand-in server"
            f" doing no game work, pushing {bench.view_bytes:,}-byte views):"
            f" {fmt(figures.med(key, 'acts_per_s'), 0)} acts/s (act p50 / p99"
            f" {fmt(figures.med(key, 'act_p50_ms'))} / {fmt(figures.med(key, 'act_p99_ms'))} ms)."
        )


def _config_table(figures: Figures, bench: Bench, config: Config) -> None:
    print(f"\nstakeout {config.label} (build/server/API processes)")
    print(
        "| load | loop | acts/s | act POST p50 / p99 ms | loop p50 / p99 ms | GETs/act |"
        " API CPU ms/act | act POSTs/s ÷ /healthz (by CPU) | boardgame.io moves/s (p50 / p99 ms) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    healthz = f"{config.label} healthz"
    healthz_cpu = figures.cpu_ms(healthz, "requests_per_s")
    for g in bench.games:
        bgio = f"bgio-{g}"
        them = (
            f"{fmt(figures.med(bgio, 'moves_per_s'), 0)} ({fmt(figures.med(bgio, 'p50_ms'))} /"
            f" {fmt(figures.med(bgio, 'p99_ms'))})"
            if bench.with_bgio
            else "-"
        )
        for conn, loop, game in bench.loops:
            key = _key(config, loop, conn, g, game)
            cpu = figures.cpu_ms(key, "acts_per_s")
            versus = figures.ratio(key, "acts_per_s", healthz, "requests_per_s")
            by_cpu = 100 * healthz_cpu / cpu if healthz_cpu and cpu else None
            act = f"{fmt(figures.med(key, 'act_p50_ms'))} / {fmt(figures.med(key, 'act_p99_ms'))}"
            whole = (
                f"{fmt(figures.med(key, 'loop_p50_ms'))} / {fmt(figures.med(key, 'loop_p99_ms'))}"
            )
            print(
                f"| {g} games | {game} {loop}, {conn} connections |"
                f" {fmt(figures.med(key, 'acts_per_s'), 0)} | {act} | {whole} |"
                f" {fmt(figures.ratio(key, 'gets_per_s', key, 'acts_per_s'), 2)} | {fmt(cpu, 2)} |"
                f" {fmt(100 * versus if versus else None, 0)} % ({fmt(by_cpu, 0)} %) | {them} |"
            )
            _errors(figures.rounds, key)
        first_game = bench.loops[0][2]
        names = {"get-post": "GET + POST", "prefer": "Prefer", "socket": "socket"}
        for conn, loop, game in bench.loops:
            key = _key(config, loop, conn, g, game)
            if bench.with_bgio and loop in ("get-post", "socket") and game == first_game:
                versus_bgio = figures.ratio(key, "acts_per_s", bgio, "moves_per_s")
                print(
                    f"|   | stakeout {game} {names[loop]} acts/s ({conn} connections) ÷"
                    f" boardgame.io moves/s: {fmt(versus_bgio, 2)} (p99 ms"
                    f" {fmt(figures.med(key, 'act_p99_ms'))} act answered,"
                    f" {fmt(figures.med(key, 'loop_p99_ms'))} loop or view;"
                    f" boardgame.io's {fmt(figures.med(bgio, 'p99_ms'))}) |"
                )
            http = _key(config, "get-post", conn, g, game)
            if loop == "socket" and any(lp == ("seat", "get-post", game) for lp in bench.loops):
                print(
                    f"|   | stakeout {game} socket API CPU an act ÷ the GET + POST loop's:"
                    f" {fmt(figures.cpu_ratio(key, http, 'acts_per_s'), 2)} (pushed views an"
                    f" act: {fmt(figures.ratio(key, 'views_per_s', key, 'acts_per_s'), 2)}) |"
                )


def _errors(rounds: list[dict[str, Any]], key: str) -> None:
    errors = sum(r[key]["errors"] for r in rounds)
    if errors:
        kinds: dict[str, int] = {}
        for r in rounds:
            for kind, count in r[key].get("failures", {}).items():
                kinds[kind] = kinds.get(kind, 0) + count
        detail = ", ".join(f"{kind}: {count}" for kind, count in sorted(kinds.items()))
        print(f"|   | ({errors} non-2xx answers{'; ' + detail if detail else ''}) |")


def _pairs(configs: list[Config]) -> list[tuple[Config, Config]]:
    """The pairs of configurations that differ in one thing only (the build, the server or
    the process count), earlier one first; with none such, each against the first."""
    pairs = [
        (a, b)
        for i, a in enumerate(configs)
        for b in configs[i + 1 :]
        if [a.build == b.build, a.server == b.server, a.processes == b.processes].count(False) == 1
    ]
    return pairs or [(configs[0], b) for b in configs[1:]]


def _side_by_side(figures: Figures, bench: Bench) -> None:
    """Each pair of `_pairs`, the second against the first, round by round (then the
    median)."""
    print("\nSide by side (the second of each pair against the first: ratios within each round,")
    print("then the median; act POST p99, or /healthz p99, of each):")
    print("| load | loop | second ÷ first | acts/s | API CPU/act | p99 ms |")
    print("|---|---|---|---|---|---|")
    for first, second in _pairs(bench.configs):
        pair = f"{second.label} ÷ {first.label}"
        for g in bench.games:
            for conn, loop, game in bench.loops:
                a, b = _key(first, loop, conn, g, game), _key(second, loop, conn, g, game)
                print(
                    f"| {g} games | {game} {loop}, {conn} | {pair} |"
                    f" {fmt(figures.ratio(b, 'acts_per_s', a, 'acts_per_s'), 3)} |"
                    f" {fmt(figures.cpu_ratio(b, a, 'acts_per_s'), 3)} |"
                    f" {fmt(figures.med(b, 'act_p99_ms'))} / {fmt(figures.med(a, 'act_p99_ms'))} |"
                )
        a, b = f"{first.label} healthz", f"{second.label} healthz"
        print(
            f"| | /healthz | {pair} |"
            f" {fmt(figures.ratio(b, 'requests_per_s', a, 'requests_per_s'), 3)} |"
            f" {fmt(figures.cpu_ratio(b, a, 'requests_per_s'), 3)} |"
            f" {fmt(figures.med(b, 'p99_ms'))} / {fmt(figures.med(a, 'p99_ms'))} |"
        )


def _where_the_cpu_went(figures: Figures, bench: Bench) -> None:
    print(
        "\nWhere the machine's CPU went (ms of CPU an act or a move, medians; workers: a"
        " `stakeout run`'s; the machine's busy cores out of"
        f" {os.cpu_count()}, the other sessions' load included):"
    )
    print("| load | loop | server | API | store (Valkey) | workers | driver | machine busy |")
    print("|---|---|---|---|---|---|---|---|")
    for g in bench.games:
        rows = [
            (f"{game} {loop}, {conn}", c.label, _key(c, loop, conn, g, game), "acts_per_s")
            for conn, loop, game in bench.loops
            for c in bench.configs
        ]
        if bench.with_bgio:
            rows.append(("cards", "boardgame.io", f"bgio-{g}", "moves_per_s"))
        for what, name, key, count in rows:
            busy = median([r[key]["machine_cpu_s"] / r[key]["seconds"] for r in figures.rounds])
            ours = name != "boardgame.io"
            store = figures.per(key, "store_cpu_s", count) if ours else None
            workers = figures.per(key, "workers_cpu_s", count) if ours else None
            print(
                f"| {g} games | {what} | {name} | {fmt(figures.per(key, 'cpu_s', count), 3)} |"
                f" {fmt(store, 3)} | {fmt(workers, 3)} |"
                f" {fmt(figures.per(key, 'driver_cpu_s', count), 3)} | {fmt(busy, 2)} |"
            )


if __name__ == "__main__":
    main()
