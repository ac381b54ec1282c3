"""Webhook deliveries per second from one webhook worker to a local receiver. Not a test.

    .venv/bin/python bench/webhooks.py [--seconds 10] [--rounds 2] [--hooks 40] [--games 400]
        [--hosts 4] [--ref REV | --skip-ref] [--profile SECONDS]
    .venv/bin/python bench/webhooks.py --play [--games 32] [--seconds 20] [--driver node]

Starts, in temporary folders (nothing is written to the repository):

- an embedded Valkey (AOF on, as ``make run``): the event store and the queue, as on one
  machine;
- a receiver process (asyncio, uvloop and httptools: a 204 for every POST, keep-alive)
  listening on ``--hosts`` ports, so the deliveries go to that many origins. It counts
  every POST and the distinct (webhook, ``Stakeout-Delivery``) pairs. Its own ceiling is
  measured first, against a raw-socket client process of its own (64 keep-alive
  connections), and its CPU is read during every measurement: it must not be what limits
  the rate.

Then, per round and per build (interleaved, so the machine's load hits both alike): the
queues emptied, ``--hooks`` webhooks registered (one API key each), and deliveries queued
as the follow-up of ``--games`` human games' changes would queue them (one
``seat.awaited`` notification per change, with its seats, to the game's owner's webhook),
spread over the games' changes in play order; then one webhook worker
(``stakeout worker --queues webhooks``) is started, and once its first delivery has
arrived the arrivals over ``--seconds`` are counted, with the CPU the worker (its whole
process group), Valkey and the receiver used meanwhile.

Builds: this tree, and ``--ref`` (default ``ec0a6ab``, the last build with one RQ job per
delivery), exported with ``git archive`` into a temporary folder and run from there with
this venv. ``--profile N`` samples the worker with py-spy for N seconds after each build's
last measurement and prints where its time went (functions by share of samples).

``--play``: does one webhook worker keep up with play? Real games instead of queued
deliveries: an API process, a game worker (its dispatcher follows every act up, and queues
a ``seat.awaited`` delivery for the one webhook), a webhook worker and the receiver, on one
Valkey; ``--games`` 4-seat FBI games of human seats played at once by bench/move_path.py's
Node driver (undici installed with npm into a temporary folder; ``--driver python``: a
slower client of this script's own). Printed: acts and deliveries a second, the deliveries
waiting and the outbox entries not yet followed up (sampled every 0.5 s), and how long both
take to drain once play stops.

The machine may be busy: compare the builds within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.ops.embedded import EmbeddedRedis  # noqa: E402
from service.store.keys import DELIVERIES  # noqa: E402
from tests.processes import Processes, cli_module, exported, free_port, running  # noqa: E402

DEFAULT_REF = "ec0a6ab"

RECEIVER = r"""
import asyncio, json, sys
import httptools, uvloop

ports = [int(p) for p in sys.argv[1].split(",")]
posts = 0
seen = set()
NO_CONTENT = b"HTTP/1.1 204 No Content\r\n\r\n"


class Receiver(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport
        self.parser = httptools.HttpRequestParser(self)
        self.delivery = b""
        self.url = b""

    def data_received(self, data):
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            self.transport.close()

    def on_url(self, url):
        self.url = url

    def on_header(self, name, value):
        if name.lower() == b"stakeout-delivery":
            self.delivery = value

    def on_message_complete(self):
        global posts
        if self.parser.get_method() == b"GET":
            body = json.dumps({"posts": posts, "distinct": len(seen)}).encode()
            head = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body)
            self.transport.write(head + body)
            return
        posts += 1
        seen.add((self.url, self.delivery))
        self.delivery = b""
        self.transport.write(NO_CONTENT)


async def main():
    loop = asyncio.get_running_loop()
    for port in ports:
        await loop.create_server(Receiver, "127.0.0.1", port, backlog=1024)
    print("ready", flush=True)
    await asyncio.Event().wait()


uvloop.run(main())
"""

# Keep-alive connections that each POST, wait for the 204, and POST again.
CEILING_CLIENT = r"""
import asyncio, json, sys, time
import uvloop

port, connections, seconds, size = (int(x) for x in sys.argv[1:5])
body = b"x" * size
request = (
    b"POST /hook/ceiling HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Stakeout-Delivery: ceiling\r\nContent-Length: %d\r\n\r\n" % size
) + body
done = 0


async def one(end):
    global done
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    while time.monotonic() < end:
        writer.write(request)
        await reader.readuntil(b"\r\n\r\n")
        done += 1
    writer.close()


async def main():
    end = time.monotonic() + seconds
    started = time.monotonic()
    await asyncio.gather(*(one(end) for _ in range(connections)))
    print(json.dumps({"requests_per_s": done / (time.monotonic() - started)}))


uvloop.run(main())
"""

# Registers the webhooks and queues the deliveries, with the code of the build it runs in.
# argv: the Redis URL, the receiver's base URLs (comma-separated), hooks, games, deliveries.
FILL_COMMON = r"""
import asyncio, sys, time
import msgspec
from service.notify import webhooks
from service.notify.webhooks import NotifiedSeat
from service.settings import Settings
from service.wiring import open_wiring

url, bases, hooks, games, total = sys.argv[1], sys.argv[2].split(","), *map(int, sys.argv[3:6])
RUN = time.time_ns() % 2**32  # a run's notification ids are its own
SEATS = [NotifiedSeat(seat=i, type="human", name=f"Player {i}", external_id=f"user-{i:06d}")
         for i in range(3)] + [NotifiedSeat(seat=3, type="bot", name="Bot")]


def changes(made):
    '''(webhooks of the game's owner, that change's notifications), in play order.'''
    at = int(time.time() * 1000)
    versions = [1] * games
    for n in range(total):
        game = n % games
        versions[game] += 1
        game_id = f"{RUN:08x}{game:016x}"
        note = webhooks.notifications(
            game_id, versions[game], at + n, [(n % 3, "move", "play", None)], None, None
        )
        yield [made[game % hooks]], [msgspec.structs.replace(x, seats=SEATS) for x in note]


async def register(wiring):
    return [
        await wiring.webhooks.add(
            f"bench-owner-{i}", f"{bases[i % len(bases)]}/hook/{i}", ["seat.awaited"], None
        )
        for i in range(hooks)
    ]
"""

FILL_RQ = (
    FILL_COMMON
    + r"""
async def main():
    async with open_wiring(Settings(redis_url=url)) as wiring:
        made = await register(wiring)
        requests = []
        for hooked, notes in changes(made):
            requests += wiring.follow_up._deliveries(notes, hooked)
        wiring.jobs.enqueue(requests)


asyncio.run(main())
"""
)

FILL_STREAM = (
    FILL_COMMON
    + r"""
async def main():
    async with open_wiring(Settings(redis_url=url)) as wiring:
        made = await register(wiring)
        deliveries = []
        for hooked, notes in changes(made):
            deliveries += wiring.follow_up._deliveries(notes, hooked)
        for i in range(0, len(deliveries), 1000):
            wiring.follow_up.deliveries.enqueue(deliveries[i : i + 1000])


asyncio.run(main())
"""
)


def group_cpu_seconds(pgid: int) -> float:
    """User + system CPU of every live process of the process group ``pgid``."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid:
                total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid: int | None) -> float:
    if pid is None:
        return 0.0
    with contextlib.suppress(OSError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return 0.0


class Build:
    """A tree of the code: this one, or an exported ``--ref``."""

    def __init__(self, name: str, tree: Path, fill: str) -> None:
        self.name = name
        self.tree = tree
        self.fill = fill

    def env(self, redis_url: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "QUEUE_REDIS_URL"}}
        env.update(
            REDIS_URL=redis_url,
            PYTHONPATH=str(self.tree),
            LOG_LEVEL="WARNING",
            STAKEOUT_WEBHOOK_ALLOW_PRIVATE="1",
        )
        return env

    def run_fill(self, redis_url: str, bases: list[str], args: argparse.Namespace, n: int) -> None:
        subprocess.run(
            [
                sys.executable,
                "-c",
                self.fill,
                redis_url,
                ",".join(bases),
                str(args.hooks),
                str(args.games),
                str(n),
            ],
            cwd=self.tree,
            env=self.env(redis_url),
            check=True,
        )

    def worker(self, procs: Processes, redis_url: str) -> subprocess.Popen[bytes]:
        """A webhook worker of this tree (its log in ``procs``' folder)."""
        args = [sys.executable, "-m", cli_module(self.tree), "worker", "--queues", "webhooks"]
        return procs.spawn(f"worker-{self.name}", args, self.env(redis_url), self.tree)


def fill_of(tree: Path) -> str:
    """How deliveries are queued in ``tree``: RQ jobs, or the delivery stream."""
    streamed = (tree / "service" / "notify" / "delivery_queue.py").exists()
    return FILL_STREAM if streamed else FILL_RQ


def stats(base: str) -> dict[str, int]:
    return dict(httpx.get(base + "/stats", timeout=5).json())


def _frame(raw: str) -> str:
    """``function (path:line)`` as ``function file:line``."""
    function, _, where = raw.rpartition(" (")
    return f"{function} {where.rstrip(')').rsplit('/', 1)[-1]}" if function else raw


def _package(raw: str) -> str:
    """Where a frame's code lives: this repository's folder, else the library or standard
    library module (py-spy names files from their import root)."""
    parts = raw.rpartition(" (")[2].rstrip(")").rsplit(":", 1)[0].split("/")
    if parts[0] in {"service", "workers", "domain"}:
        return "stakeout " + "/".join(parts[:-1])
    return parts[0].removesuffix(".py")


class Profile(NamedTuple):
    """py-spy's samples of a worker: % of samples by function (total, self), and the
    samples' own time by where the code lives."""

    functions: list[tuple[str, float, float]]
    places: list[tuple[str, float]]


def profile(pid: int, seconds: int, out: Path) -> Profile:
    """py-spy's samples of ``pid`` (all its threads) for ``seconds``."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    command = [spy, "record", "-p", str(pid), "-d", str(seconds), "-r", "200", "-f", "raw"]
    subprocess.run([*command, "-o", str(out), "--nonblocking"], check=True, capture_output=True)
    own: Counter[str] = Counter()
    total: Counter[str] = Counter()
    places: Counter[str] = Counter()
    samples = 0
    for line in out.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        n = int(count)
        raw = stack.split(";")
        frames = [_frame(f) for f in raw]
        samples += n
        own[frames[-1]] += n
        places[_package(raw[-1])] += n
        for frame in set(frames):
            total[frame] += n
    if not samples:
        return Profile([], [])
    return Profile(
        [(f, 100 * own[f] / samples, 100 * t / samples) for f, t in total.most_common(40)],
        [(place, 100 * n / samples) for place, n in places.most_common(12)],
    )


def measure(
    build: Build,
    redis: EmbeddedRedis,
    receiver: subprocess.Popen[bytes],
    base: str,
    bases: list[str],
    args: argparse.Namespace,
    procs: Processes,
) -> tuple[dict[str, float], subprocess.Popen[bytes]]:
    import redis as redis_py

    client = redis_py.Redis.from_url(redis.url)
    client.flushdb()
    client.close()
    build.run_fill(redis.url, bases, args, args.rq if build.fill is FILL_RQ else args.deliveries)
    before = stats(base)
    worker = build.worker(procs, redis.url)
    deadline = time.monotonic() + 60
    while stats(base)["posts"] == before["posts"]:
        if worker.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the {build.name} worker delivered nothing:\n{procs.tail(worker)}")
        time.sleep(0.05)
    time.sleep(1.0)  # past its warm-up
    start, started = stats(base), time.monotonic()
    cpu = (
        group_cpu_seconds(worker.pid),
        process_cpu_seconds(redis.pid),
        process_cpu_seconds(receiver.pid),
    )
    time.sleep(args.seconds)
    end, elapsed = stats(base), time.monotonic() - started
    used = (
        group_cpu_seconds(worker.pid) - cpu[0],
        process_cpu_seconds(redis.pid) - cpu[1],
        process_cpu_seconds(receiver.pid) - cpu[2],
    )
    posts = end["posts"] - start["posts"]
    per = 1000 / max(posts, 1)
    figures = {
        "rate": posts / elapsed,
        "worker_ms": used[0] * per,
        "valkey_ms": used[1] * per,
        "receiver_ms": used[2] * per,
        "receiver_busy": used[2] / elapsed,
        "duplicates": (end["posts"] - end["distinct"]) - (start["posts"] - start["distinct"]),
    }
    return figures, worker


API_KEY = "sk_bench"


async def _play_games(base: str, games: int, seconds: float) -> int:
    """``games`` 4-seat FBI games of human seats played at once, each seat a client making
    a random legal act as soon as it is awaited (tests/processes.py's), for ``seconds``; a
    finished game is replaced. Returns the acts made."""
    from tests.processes import HumanSeat, next_request

    rng = random.Random(29)
    acts = 0
    end = time.monotonic() + seconds
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:

        async def one_table() -> None:
            nonlocal acts
            while time.monotonic() < end:
                body = {"game": "fbi", "seats": [{"type": "human"}] * 4}
                made = (await http.post("/v1/games", json=body, headers=_auth(API_KEY))).json()
                seats = [HumanSeat(made["id"], i, s["token"]) for i, s in enumerate(made["seats"])]
                seen = (await http.get(f"/v1/games/{made['id']}")).json()
                while time.monotonic() < end and seen["status"] == "active":
                    awaited = {a["seat"] for a in seen["awaiting"]}
                    seat = seats[min(awaited)]
                    seen = (
                        await http.get(f"/v1/games/{made['id']}", headers=_auth(seat.token))
                    ).json()
                    request = next_request(seat, seen, rng)
                    if request is None:
                        continue
                    path, act = request
                    answer = await http.post(path, json=act, headers=_auth(seat.token))
                    acts += answer.status_code == 200
                    seen = (await http.get(f"/v1/games/{made['id']}")).json()

        await asyncio.gather(*(one_table() for _ in range(games)))
    return acts


def _node_driver(folder: Path) -> Callable[[str, int, float], float]:
    """bench/move_path.py's Node driver (undici installed with npm into ``folder``), as a
    function of the API's base URL, the games and the seconds, returning acts a second."""
    spec = importlib.util.spec_from_file_location("move_path", ROOT / "bench" / "move_path.py")
    assert spec is not None
    assert spec.loader is not None
    move_path = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(move_path)
    npm = folder / "npm"
    npm.mkdir()
    move_path.npm_install(npm, with_bgio=False)

    def drive(base: str, games: int, seconds: float) -> float:
        done = move_path.node(
            npm, npm / "http_load.mjs", "play", base, API_KEY, str(games), str(seconds), "get-post"
        )
        return float(done["acts_per_s"])

    return drive


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def play(args: argparse.Namespace) -> None:
    """Real play with one webhook for ``seat.awaited``: an API process, a game worker (its
    dispatcher follows every act up), one webhook worker, the receiver; what is waiting to
    be delivered is sampled while the games are played, and how long the backlog takes to
    drain once they stop."""
    import redis as redis_py

    folder = Path(tempfile.mkdtemp(prefix="stakeout-bench-webhook-play-"))
    server = EmbeddedRedis(folder / "valkey")
    url = server.start()
    port = free_port()
    env = {
        **Build("now", ROOT, "").env(url),
        "STAKEOUT_API_KEYS": API_KEY,
        "STAKEOUT_RATE_LIMIT_PER_MINUTE": "0",
        "STAKEOUT_MAX_ACTIVE_GAMES": "0",
    }
    with contextlib.ExitStack() as stack:
        stack.callback(shutil.rmtree, folder, ignore_errors=True)
        stack.callback(server.stop)
        procs = stack.enter_context(running(folder))
        procs.spawn("receiver", [sys.executable, "-c", RECEIVER, str(port)], env)
        base, receiver = procs.api(env, timeout=60).base, f"http://127.0.0.1:{port}"
        procs.worker(env)
        procs.worker(env, "webhooks")
        hook = {"url": receiver + "/hook/0", "events": ["seat.awaited"]}
        httpx.post(base + "/v1/webhooks", json=hook, headers=_auth(API_KEY)).raise_for_status()
        time.sleep(1.2)  # the dispatcher knows the webhook (cached 1 s)
        queue = redis_py.Redis.from_url(url)
        samples: list[tuple[int, int]] = []

        def backlog() -> tuple[int, int]:
            """(deliveries waiting, outbox entries not yet followed up)."""
            ready = httpx.get(base + "/readyz", timeout=5).json()
            waiting: Any = queue.xlen(DELIVERIES)
            return int(waiting), int(ready.get("outbox_lag") or 0) + int(
                ready.get("outbox_pending") or 0
            )

        driver = _node_driver(folder) if args.driver == "node" else None

        async def sampled() -> float:
            """Acts a second, while the backlog is sampled."""

            async def sampler() -> None:
                while True:
                    await asyncio.sleep(0.5)
                    samples.append(await asyncio.to_thread(backlog))

            task = asyncio.create_task(sampler())
            try:
                if driver is None:
                    made = await _play_games(base, args.games, args.seconds)
                    return float(made / args.seconds)
                return float(await asyncio.to_thread(driver, base, args.games, args.seconds))
            finally:
                task.cancel()

        before = stats(receiver)["posts"]
        began = time.monotonic()
        rate = asyncio.run(sampled())
        played = time.monotonic() - began
        during = stats(receiver)["posts"] - before
        stopped = time.monotonic()
        while backlog() != (0, 0) and time.monotonic() - stopped < 120:
            time.sleep(0.1)
        drained = time.monotonic() - stopped
        queue.close()
    client = "a Python client" if args.driver == "python" else "bench/http_load.mjs"
    print(
        f"\n{args.games} FBI games of 4 human seats played at once for {played:.1f} s "
        f"({client}), one webhook for seat.awaited; an API process, a game worker, "
        "a webhook worker, on one Valkey\n"
    )
    print(
        "| acts/s | deliveries/s | deliveries waiting (median / max) "
        "| outbox entries not yet followed up (median / max) | drained after play, s |"
    )
    print("|---|---|---|---|---|")
    waiting = sorted(w for w, _ in samples) or [0]
    lag = sorted(o for _, o in samples) or [0]
    print(
        f"| {rate:,.0f} | {during / played:,.0f} "
        f"| {statistics.median(waiting):.0f} / {waiting[-1]} "
        f"| {statistics.median(lag):.0f} / {lag[-1]} | {drained:.1f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--hooks", type=int, default=40)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--hosts", type=int, default=4)
    parser.add_argument("--deliveries", type=int, default=40_000, help="queued for this tree")
    parser.add_argument("--rq", type=int, default=1_000, help="queued for the RQ build")
    parser.add_argument("--ref", default=DEFAULT_REF)
    parser.add_argument("--skip-ref", action="store_true")
    parser.add_argument("--profile", type=int, default=0, metavar="SECONDS")
    parser.add_argument("--play", action="store_true", help="real games instead (see play())")
    parser.add_argument(
        "--driver", choices=("node", "python"), default="node", help="--play's clients"
    )
    args = parser.parse_args()
    if args.play:
        play(args)
        return

    folder = Path(tempfile.mkdtemp(prefix="stakeout-bench-webhooks-"))
    redis = EmbeddedRedis(folder / "valkey")
    redis.start()
    ports = [free_port() for _ in range(args.hosts)]
    receiver = subprocess.Popen(
        [sys.executable, "-c", RECEIVER, ",".join(map(str, ports))],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    assert receiver.stdout is not None
    receiver.stdout.readline()
    bases = [f"http://127.0.0.1:{p}" for p in ports]
    results: dict[str, list[dict[str, float]]] = {}
    profiles: dict[str, Profile] = {}
    with contextlib.ExitStack() as stack:
        stack.callback(shutil.rmtree, folder, ignore_errors=True)
        stack.callback(redis.stop)
        procs = stack.enter_context(running(folder))
        stack.callback(procs.stop, receiver)
        builds = [Build("now", ROOT, fill_of(ROOT))]
        if not args.skip_ref:
            ref_tree = stack.enter_context(exported(args.ref))
            builds.insert(0, Build(f"ref {args.ref}", ref_tree, fill_of(ref_tree)))
        ceiling_cpu = process_cpu_seconds(receiver.pid)
        ceiling = subprocess.run(
            [sys.executable, "-c", CEILING_CLIENT, str(ports[0]), "64", "3", "420"],
            capture_output=True,
            check=True,
            text=True,
        )
        ceiling_rate = json.loads(ceiling.stdout)["requests_per_s"]
        ceiling_ms = (process_cpu_seconds(receiver.pid) - ceiling_cpu) * 1000
        ceiling_ms /= max(ceiling_rate * 3, 1)
        for round_ in range(args.rounds):
            for build in builds:
                figures, worker = measure(build, redis, receiver, bases[0], bases, args, procs)
                try:
                    results.setdefault(build.name, []).append(figures)
                    print(
                        f"round {round_ + 1} {build.name}: {figures['rate']:,.0f} deliveries/s",
                        flush=True,
                    )
                    if args.profile and round_ == args.rounds - 1:
                        spied = folder / f"profile-{len(profiles)}.txt"
                        profiles[build.name] = profile(worker.pid, args.profile, spied)
                finally:
                    procs.stop(worker)
    report(args, results, profiles, ceiling_rate, ceiling_ms)


def report(
    args: argparse.Namespace,
    results: dict[str, list[dict[str, float]]],
    profiles: dict[str, Profile],
    ceiling_rate: float,
    ceiling_ms: float,
) -> None:
    print(
        f"\n{args.hooks} webhooks (one API key each) over {args.hosts} receiver origins, "
        f"{args.games} games; {args.rounds} rounds of {args.seconds:g} s, medians\n"
    )
    print(
        "| build | deliveries/s | worker CPU ms/delivery | Valkey CPU ms/delivery "
        "| receiver CPU ms/request | receiver busy | duplicates |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, rows in results.items():

        def med(key: str, rows: list[dict[str, float]] = rows) -> float:
            return statistics.median(r[key] for r in rows)

        print(
            f"| {name} | {med('rate'):,.0f} | {med('worker_ms'):.2f} | {med('valkey_ms'):.3f} "
            f"| {med('receiver_ms'):.3f} | {100 * med('receiver_busy'):.0f} % "
            f"| {int(sum(r['duplicates'] for r in rows))} |"
        )
    print(
        f"\nThe receiver's own ceiling: {ceiling_rate:,.0f} requests/s from a raw-socket "
        f"client (64 connections), {ceiling_ms:.3f} ms of its CPU a request."
    )
    for name, spied in profiles.items():
        print(f"\nWhere the {name} worker's time went (py-spy, % of samples: total, self):")
        for function, own, total in spied.functions[:25]:
            print(f"  {total:5.1f} {own:5.1f}  {function}")
        print(f"\n  The {name} worker's samples by where the running code lives (self):")
        for place, share in spied.places:
            print(f"  {share:5.1f}  {place}")


if __name__ == "__main__":
    main()
