"""The move path under load, side by side with boardgame.io 0.50 (issue 13). Not a test.

    .venv/bin/python bench/move_path.py [--seconds 20] [--rounds 2] [--processes 2] [--skip-bgio]

Starts, on this machine, in temporary folders (nothing is written to the repository):

- a Valkey server (no persistence changes: AOF on, as `make run`) and the stakeout API
  under uvicorn (uvloop + httptools, an answer written at once: `service/http/protocol.py`,
  as `stakeout serve` has it) with ``--processes`` worker processes, the rate limit
  off (``STAKEOUT_RATE_LIMIT_PER_MINUTE=0``) and no quota of active games, JSON access logs on
  (to a file);
- a bare Litestar app (one no-op route) under the same uvicorn settings;
- boardgame.io 0.50 and undici, installed with npm into a temporary folder, and a minimal
  boardgame.io game server written here (a 4-player card game: each turn one move, then
  the turn passes), its own Koa + socket.io server with in-memory storage.

The load driver is Node (`bench/http_load.mjs`, undici), not Python: its own ceiling is
shown against the bare app. Every seat is a client with a keep-alive connection of its own,
as a player's device is and as each boardgame.io seat has its own socket (the default,
``--connections seat``); ``--connections shared`` sends every game's requests over one
shared pool instead (a seat's GET and POST may then reach different API processes), and
``both`` measures the two side by side. Printed, for 8 and 32 concurrent games: stakeout's
acts/s and p50/p99 for the GET-view + POST-act loop (4-player FBI, every seat a client), the
POST-only loop with ``Prefer: return=representation`` (a GET only when another seat acts
next), both loops again on 4-player Bonnie and Clyde (``--played``: there a seat acts
several times in a row, so the ``Prefer`` loop skips most GETs; in FBI it skips few), the
ratio of act POSTs/s to the same server's /healthz req/s, boardgame.io's moves/s and
p50/p99 (a move's latency: from the move call to the mover's next state update), and
/healthz against the bare Litestar app.

All servers run for the whole bench, and every measurement is taken in ``--rounds`` slices
(``--seconds`` split among them) interleaved with the others, so that a shared machine's
load, which moves over minutes, hits them alike; each ratio is taken within a round, and
the medians over the rounds are printed. Next to the rates: the CPU time the API
processes spent (all of them, from /proc) per act and per /healthz request, a figure the
machine's load moves much less than a rate; "by CPU" is the act-to-/healthz ratio from those
(API CPU per /healthz request ÷ API CPU per act).

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
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
DRIVER = ROOT / "bench" / "http_load.mjs"
HTTP_PROTOCOL = "service.http.protocol:OneWriteProtocol"
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
    # As `stakeout serve` has it (service/ops/cli.py): no X-Forwarded-For rewriting by uvicorn,
    # no ``server`` header.
    args += ["--no-access-log", "--no-proxy-headers", "--no-server-header"]
    args += ["--log-level", "warning"]
    return [*args, "--factory"] if factory else args


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
) -> tuple[int, str]:
    """Serve ``target`` with `uvicorn_args` for as long as ``servers`` lasts (its log in
    ``folder``); its session and base URL, once ``ready`` answers."""
    port = free_port()
    argv = uvicorn_args(target, port, processes, factory, python)
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


def cpu_seconds(session: int) -> float:
    """User + system CPU of every live process of ``session`` (a server and its workers)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[3]) == session:  # the session id (processes start one each)
                total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid: int | None) -> float:
    """User + system CPU of one process (0 when it is not known)."""
    if pid is None:
        return 0.0
    with contextlib.suppress(OSError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return 0.0


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine spent busy (every core; /proc/stat, idle and iowait out)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def measure(session: int, seconds: str, run: Any, store_pid: int | None = None) -> dict[str, Any]:
    """``run()``'s result, with the CPU seconds used meanwhile by the server ``session``
    (``cpu_s``), the store process (``store_cpu_s``), the driver (``driver_cpu_s``: this
    process's finished children) and the whole machine (``machine_cpu_s``)."""
    before = cpu_seconds(session)
    store_before = process_cpu_seconds(store_pid)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    machine_before = machine_busy_seconds()
    result: dict[str, Any] = run()
    result["cpu_s"] = cpu_seconds(session) - before
    result["store_cpu_s"] = process_cpu_seconds(store_pid) - store_before
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="per measurement, in all")
    parser.add_argument("--rounds", type=int, default=2, help="slices of each, interleaved")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--games", default="8,32")
    parser.add_argument("--skip-bgio", action="store_true")
    parser.add_argument("--connections", choices=("seat", "shared", "both"), default="seat")
    parser.add_argument(
        "--played",
        default=",".join(PLAYED),
        help="the games stakeout's loops play (fbi first: boardgame.io is compared with it)",
    )
    args = parser.parse_args()
    connections = ("seat", "shared") if args.connections == "both" else (args.connections,)
    played = tuple(args.played.split(","))
    games = [int(g) for g in args.games.split(",")]
    seconds = str(args.seconds / args.rounds)
    rounds: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="stakeout-bench-") as tmp_name:
        tmp = Path(tmp_name)
        print(f"installing undici{'' if args.skip_bgio else ' and boardgame.io'} (npm) ...")
        npm_install(tmp, not args.skip_bgio)
        driver = tmp / DRIVER.name
        valkey, env, apps = served_apps(tmp, {"bare_app.py": BARE_APP})
        (tmp / "ceiling.cjs").write_text(CEILING_SERVER)
        (tmp / "bgio_server.cjs").write_text(BGIO_SERVER)
        (tmp / "bgio_driver.cjs").write_text(BGIO_DRIVER)
        ports = {name: free_port() for name in ("ceiling", "bgio")}
        url = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
        bgio_env = {
            **os.environ,
            "PORT": str(ports["bgio"]),
            "NODE_PATH": str(tmp / "node_modules"),
        }
        try:
            # Every server runs for the whole bench (idle while another is measured), and
            # the measurements are interleaved round by round: a shared machine's load
            # moves over minutes, and each ratio compares figures taken seconds apart.
            with contextlib.ExitStack() as servers:
                api, url["stakeout"] = serve(
                    servers, "service.app:app_factory", args.processes, True, env, tmp,
                    ready="/readyz",
                )  # fmt: skip
                _, url["bare"] = serve(
                    servers, "bare_app:app", args.processes, False, env, tmp, cwd=apps
                )
                servers.enter_context(
                    process(
                        ["node", "ceiling.cjs", str(ports["ceiling"])],
                        dict(os.environ),
                        tmp / "c.log",
                        cwd=tmp,
                    )
                )
                bgio = None
                if not args.skip_bgio:
                    bgio = servers.enter_context(
                        process(["node", "bgio_server.cjs"], bgio_env, tmp / "bgio.log", cwd=tmp)
                    )
                wait_http(url["ceiling"] + "/healthz")
                time.sleep(1.5)  # boardgame.io's server
                # Warm up: both API processes load the code paths and a few games.
                node(tmp, driver, "play", url["stakeout"], API_KEY, "8", "2", "get-post")
                for n in range(args.rounds):
                    print(f"round {n + 1} of {args.rounds} ...", flush=True)
                    got: dict[str, Any] = {}
                    got["healthz"] = measure(
                        api,
                        seconds,
                        lambda: node(tmp, driver, "healthz", url["stakeout"], "32", seconds),
                    )
                    got["bare"] = node(tmp, driver, "healthz", url["bare"], "32", seconds)
                    got["ceiling"] = node(tmp, driver, "healthz", url["ceiling"], "32", seconds)
                    for g in games:
                        for conn, loop, game in _loops(connections, played):
                            got[_key(loop, conn, g, game)] = measure(
                                api,
                                seconds,
                                lambda g=g, loop=loop, conn=conn, game=game: node(
                                    tmp,
                                    driver,
                                    "play",
                                    url["stakeout"],
                                    API_KEY,
                                    str(g),
                                    seconds,
                                    loop,
                                    conn,
                                    game,
                                ),
                                valkey.pid,
                            )
                        if bgio is not None:
                            got[f"bgio-{g}"] = measure(
                                bgio,
                                seconds,
                                lambda g=g: node(
                                    tmp, tmp / "bgio_driver.cjs", url["bgio"], str(g), seconds
                                ),
                            )
                    rounds.append(got)
        finally:
            valkey.stop()
    report(rounds, games, args.processes, connections, played)


# The games stakeout's loops play. FBI is the one compared with boardgame.io; in 4-player
# FBI the next act is nearly always another seat's, so `Prefer` saves few GETs there. In
# Bonnie and Clyde a seat acts several times in a row (draw, meld, discard): about 60 % of
# its acts are by the seat that acted last, the POST-only loop `Prefer` is for.
PLAYED = ("fbi", "bonnie_clyde")


def _loops(connections: tuple[str, ...], played: tuple[str, ...]) -> list[tuple[str, str, str]]:
    """The stakeout loops measured: (connections, loop, game), per-seat connections first."""
    return [
        (conn, loop, game)
        for conn in connections
        for game in played
        for loop in ("get-post", "prefer")
        if conn == "seat" or game == played[0]
    ]


def _key(loop: str, conn: str, games: int, game: str) -> str:
    return f"{game}-{loop}-{conn}-{games}"


def report(
    rounds: list[dict[str, Any]],
    games: list[int],
    processes: int,
    connections: tuple[str, ...],
    played: tuple[str, ...],
) -> None:
    """Medians over the rounds; every ratio is taken within a round, then the median."""

    def med(key: str, field: str) -> float | None:
        return median([r[key].get(field) for r in rounds if key in r])

    def ratio(top: str, top_field: str, bottom: str, bottom_field: str) -> float | None:
        return median(
            [r[top][top_field] / r[bottom][bottom_field] for r in rounds if r[bottom][bottom_field]]
        )

    def cpu_ms_per(key: str, count_fields: tuple[str, ...]) -> float | None:
        """API CPU (all its processes) per unit: ms."""
        values: list[float | None] = []
        for r in rounds:
            got = r[key]
            elapsed = got.get("cpu_s")
            count = sum(got[f] for f in count_fields) * float(got.get("seconds", 1))
            values.append(None if elapsed is None or not count else 1000 * elapsed / count)
        return median(values)

    print(
        f"\nstakeout: {processes} API process(es), uvloop + httptools (one write an answer);"
        " driver: Node undici;"
        f" medians of {len(rounds)} interleaved rounds"
    )
    print(
        "| load | loop | acts/s | act POST p50 / p99 ms | loop p50 / p99 ms | GETs/act |"
        " API CPU ms/act | act POSTs/s ÷ /healthz (by CPU) | boardgame.io moves/s (p50 / p99 ms) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    healthz_cpu = cpu_ms_per("healthz", ("requests_per_s",))
    where: list[tuple[int, str, str, str | None]] = []
    for g in games:
        bgio = f"bgio-{g}"
        them = (
            f"{fmt(med(bgio, 'moves_per_s'), 0)} ({fmt(med(bgio, 'p50_ms'))} /"
            f" {fmt(med(bgio, 'p99_ms'))})"
            if bgio in rounds[0]
            else "-"
        )
        for conn, loop, game in _loops(connections, played):
            key = _key(loop, conn, g, game)
            acts = med(key, "acts_per_s")
            gets = ratio(key, "gets_per_s", key, "acts_per_s")
            cpu = cpu_ms_per(key, ("acts_per_s",))
            versus = ratio(key, "acts_per_s", "healthz", "requests_per_s")
            print(
                f"| {g} games | {game} {loop}, {conn} connections | {fmt(acts, 0)} |"
                f" {fmt(med(key, 'act_p50_ms'))} / {fmt(med(key, 'act_p99_ms'))} |"
                f" {fmt(med(key, 'loop_p50_ms'))} / {fmt(med(key, 'loop_p99_ms'))} |"
                f" {fmt(gets, 2)} | {fmt(cpu, 2)} | {fmt(100 * versus if versus else None, 0)} %"
                f" ({fmt(100 * healthz_cpu / cpu if healthz_cpu and cpu else None, 0)} %) |"
                f" {them} |"
            )
            errors = sum(r[key]["errors"] for r in rounds)
            if errors:
                kinds: dict[str, int] = {}
                for r in rounds:
                    for kind, count in r[key].get("failures", {}).items():
                        kinds[kind] = kinds.get(kind, 0) + count
                detail = ", ".join(f"{kind}: {count}" for kind, count in sorted(kinds.items()))
                print(f"|   | ({errors} non-2xx answers{'; ' + detail if detail else ''}) |")
        if bgio in rounds[0]:
            for conn in connections:
                versus_bgio = ratio(
                    _key("get-post", conn, g, played[0]), "acts_per_s", bgio, "moves_per_s"
                )
                print(
                    f"|   | stakeout GET + POST acts/s ({conn} connections) ÷ boardgame.io"
                    f" moves/s: {fmt(versus_bgio, 2)} |"
                )
        first = _key("get-post", connections[0], g, played[0])
        where.append((g, first, "acts_per_s", bgio if bgio in rounds[0] else None))
    print(
        "\nWhere the machine's CPU went (ms of CPU an act or a move, medians; the machine's"
        f" busy cores out of {os.cpu_count()}):"
    )
    print("| load | server | server | store (Valkey) | driver | machine busy |")
    print("|---|---|---|---|---|---|")
    for g, key, field, bgio_key in where:
        for name, k, f in (("stakeout", key, field), ("boardgame.io", bgio_key, "moves_per_s")):
            if k is None:
                continue

            def per(cpu_field: str, k: str = k, f: str = f) -> float | None:
                return median(
                    [
                        1000 * r[k][cpu_field] / (r[k][f] * r[k]["seconds"])
                        for r in rounds
                        if r[k].get(cpu_field) is not None and r[k][f]
                    ]
                )

            busy = median([r[k]["machine_cpu_s"] / r[k]["seconds"] for r in rounds])
            store = fmt(per("store_cpu_s"), 3) if name == "stakeout" else "-"
            print(
                f"| {g} games | {name} | {fmt(per('cpu_s'), 3)} | {store} |"
                f" {fmt(per('driver_cpu_s'), 3)} | {fmt(busy, 2)} |"
            )
    to_bare = ratio("healthz", "requests_per_s", "bare", "requests_per_s")
    print(
        f"\n/healthz: stakeout {fmt(med('healthz', 'requests_per_s'), 0)} req/s"
        f" (p99 {fmt(med('healthz', 'p99_ms'))} ms, API CPU"
        f" {fmt(cpu_ms_per('healthz', ('requests_per_s',)), 3)} ms a request);"
        f" bare Litestar {fmt(med('bare', 'requests_per_s'), 0)} req/s"
        f" (p99 {fmt(med('bare', 'p99_ms'))} ms): {fmt(100 * to_bare if to_bare else None, 0)} %"
        " of bare."
    )
    print(
        f"The driver's ceiling (the same /healthz loop against Node's bare http server):"
        f" {fmt(med('ceiling', 'requests_per_s'), 0)} req/s"
        f" (p99 {fmt(med('ceiling', 'p99_ms'))} ms)."
    )
    print(json.dumps(rounds))


if __name__ == "__main__":
    main()
