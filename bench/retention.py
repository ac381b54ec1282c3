"""The capacity model: Redis memory before play, while the games are hot, and some minutes
after the last one is archived, by key family; bytes per hot and per archived game, by
kind. Not a test.

    .venv/bin/python bench/retention.py [--games 30] [--seats bots|humans] [--window 60]
        [--settle 300] [--job-result-ttl SECONDS] [--archive-ttl S] [--remains-grace S]

Plays ``--games`` games (a third of each kind: FBI and The Feds with four seats, Bonnie and
Clyde with three to 100 points) on an embedded Valkey, all at once (``--at-once``). With
``--seats bots`` (random bots) two real game workers (``stakeout worker``) play them as a
deployment does: their dispatchers follow every change up, each bot turn is an RQ job, the
scoring job records the result. With ``--seats humans`` this process plays random legal
acts under an Idempotency-Key each, as an HTTP client's (the key and fingerprint stored as
the API stores them), and records the result; the workers follow the changes up. The API
key reads its account feed, so every change is also written to the feed (and its
``feed:seen`` marks). Each game is archived ``--window`` seconds after its end; RQ's records
are kept as the deployment's default says, or ``--job-result-ttl`` (3600: as before they
were deleted at once).

Memory is ``MEMORY USAGE <key> SAMPLES 0`` summed by key family (ids replaced by ``*``),
and ``INFO memory``'s ``used_memory``: before play (the workers up, the feed in use), hot
(the moment the last game's result is recorded; the peak of ``used_memory`` sampled every
second during play is printed too), and ``--settle`` seconds after the last game was
archived (``--settle 30`` for a quick look). The families are also summed into groups
(`GROUPS`: RQ's records, hot games, archives, the account feed, its ``feed:seen`` marks, the
live feeds, the per-game entries of the key's sets) at the four moments, the moment the last
game was archived included. ``--archive-ttl`` and ``--remains-grace`` set how long archives
are kept and how long after them the games' entries in the key's sets are pruned (a settle
longer than both shows those go too). A game's bytes are its ``game:{<id>}:*`` keys the
moment its result is recorded (hot), and its archive.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import random
import re
import secrets
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import msgspec
import redis.asyncio

from domain.match import CommitSeal, MakeMove, RevealSeal, SeatSpec
from domain.sealed import commitment
from service.notify.account_feed import FEED_LENGTH
from service.play.game_service import NewGame
from service.play.records import Submission
from service.play.results import record_result
from service.settings import Settings
from service.store.clients import WORKER_TIMEOUT_SECONDS
from service.store.keys import feed_key, seat_idempotency
from service.wiring import Wiring, open_wiring
from tests.processes import embedded_redis, running, service_env

OWNER = "bench"
KINDS: tuple[tuple[str, int, dict[str, Any]], ...] = (
    ("fbi", 4, {}),
    ("feds", 4, {}),
    ("bonnie_clyde", 3, {"target": 100}),
)
TARGET_RATIO = 0.15
TARGET_AFTER = 0.10
# Key families whose last part is an id (a job's, a worker's, a notification's ...).
_ID_TAILS = (
    "rq:job:",
    "rq:results:",
    "rq:execution:",
    "rq:executions:",
    "rq:worker:",
    "rq:scheduler:",
    "stakeout:worker-alive:",
    "stakeout:worker-reaped:",
    "stakeout:worker-stranded:",
    "stakeout:deliveries:queued:",
    "invite:",
    "ticket:",
)
_ID_PARTS = (
    (re.compile(r"\{[^}]*\}"), "{*}"),
    (re.compile(r":botseal:.*"), ":botseal:*"),
    (re.compile(r":feed:seen:.*"), ":feed:seen:*"),
    (re.compile(r":player:.*:games$"), ":player:*:games"),
    # RQ's marks of jobs seen in a queue's intermediate list (RQ expires them in a day).
    (re.compile(r":intermediate:first_seen:.*"), ":intermediate:first_seen:*"),
    (re.compile(r"^rq:queue:[^:]+:intermediate"), "rq:queue:*:intermediate"),
)
# Families bounded by design rather than by their games' lives: the account feed (at most
# FEED_LENGTH entries) and its marks of notifications fed (a day each).
FEED_FAMILIES = ("owner:{*}:feed", "owner:{*}:feed:seen:*")
# An API key's sets with an entry per game (pruned once the game's archive is gone), and
# the index that prunes them.
PER_GAME_SETS = (
    "owner:{*}:games",
    "owner:{*}:stats-counted",
    "owner:{*}:rated",
    "owner:{*}:player:*:games",
    "games:remains:{*}",
)
# The families summed into the groups the capacity model reads (the first that matches).
GROUPS: tuple[tuple[str, Any], ...] = (
    ("rq:* (RQ's job records, queues, workers)", lambda f: f.startswith("rq:")),
    ("archives", lambda f: f == "game:{*}:archive"),
    ("hot games (game:{*}:*)", lambda f: f.startswith("game:")),
    ("account feed (owner:{*}:feed)", lambda f: f == FEED_FAMILIES[0]),
    ("feed:seen marks (a day each)", lambda f: f == FEED_FAMILIES[1]),
    ("live feeds (stakeout:live:*)", lambda f: f.startswith("stakeout:live:")),
    ("per-game entries of the key's sets", lambda f: f in PER_GAME_SETS),
    ("outbox (streams, leases)", lambda f: f.startswith("outbox:")),
    ("other", lambda f: True),
)


def family(key: str) -> str:
    """A key's family: its ids replaced by ``*`` (``game:{*}:events``, ``rq:job:*``)."""
    for tail in _ID_TAILS:
        if key.startswith(tail):
            return tail + "*"
    for pattern, replacement in _ID_PARTS:
        key = pattern.sub(replacement, key)
    return key


class Tally:
    """One kind's games: events, hot bytes and archived bytes of each (a plain class: the
    benches' import test loads this module outside sys.modules, where no dataclass can be
    made)."""

    def __init__(self) -> None:
        self.events: list[int] = []
        self.hot: list[int] = []
        self.archived: list[int] = []


class Families:
    """Keys and bytes by family at one moment, and ``used_memory``."""

    def __init__(self, keys: dict[str, int], used: dict[str, int], memory: int) -> None:
        self.keys, self.used, self.memory = keys, used, memory

    def total(self, skip: tuple[str, ...] = ()) -> int:
        return sum(b for f, b in self.used.items() if f not in skip)

    def groups(self) -> dict[str, tuple[int, int]]:
        """Keys and bytes by group (`GROUPS`)."""
        out = {name: (0, 0) for name, _ in GROUPS}
        for name, used in self.used.items():
            group = next(g for g, test in GROUPS if test(name))
            keys, size = out[group]
            out[group] = (keys + self.keys.get(name, 0), size + used)
        return out


async def _usage(client: Any, keys: list[bytes]) -> list[int]:
    pipe = client.pipeline(transaction=False)
    for key in keys:
        pipe.memory_usage(key, samples=0)
    return [int(v or 0) for v in await pipe.execute()]


async def _game_bytes(client: Any, game_id: str) -> int:
    keys = [k async for k in client.scan_iter(match=f"game:{{{game_id}}}:*", count=1000)]
    return sum(await _usage(client, keys))


async def _families(client: Any) -> Families:
    keys: dict[str, int] = defaultdict(int)
    used: dict[str, int] = defaultdict(int)
    names = [k async for k in client.scan_iter(count=1000)]
    for start in range(0, len(names), 5000):
        chunk = names[start : start + 5000]
        for key, size in zip(chunk, await _usage(client, chunk), strict=True):
            name = family(key.decode())
            keys[name] += 1
            used[name] += size
    memory = int((await client.info("memory"))["used_memory"])
    return Families(dict(keys), dict(used), memory)


async def _human_act(
    wiring: Wiring, game_id: str, rng: random.Random, kept: dict[int, Any]
) -> None:
    loaded = await wiring.games.load(game_id)
    action = rng.choice(loaded.awaited)
    seat = action.seat
    act: Any
    if action.action == "reveal":
        act = RevealSeal(seat, *kept.pop(seat))
    else:
        move = msgspec.to_builtins(rng.choice(loaded.engine.legal(loaded.match, seat)))
        if action.action == "move":
            act = MakeMove(seat, move)
        else:
            salt = secrets.token_hex(16)
            kept[seat] = (move, salt)
            act = CommitSeal(seat, commitment(game_id, action.step, seat, move, salt), action.step)
    # As the API stores a client's key: namespaced by the seat, with the request's SHA-256.
    key = seat_idempotency(seat, secrets.token_urlsafe(16))
    fingerprint = hashlib.sha256(msgspec.json.encode(act)).hexdigest()
    await wiring.games.act(Submission(game_id, act, key=key, fingerprint=fingerprint))


async def _play(
    wiring: Wiring,
    kind: tuple[str, int, dict[str, Any]],
    humans: bool,
    seed: int,
    gate: asyncio.Semaphore,
) -> str:
    """One game to its recorded result: humans here, bots by the workers' jobs (``gate``:
    the games made or played by this process at once)."""
    name, seats, options = kind
    spec = SeatSpec("human") if humans else SeatSpec("bot", "random")
    async with gate:
        made = await wiring.games.create(NewGame(OWNER, name, options, [spec] * seats))
    game_id, rng = made.game_id, random.Random(seed)
    kept: dict[int, Any] = {}
    if humans:
        async with gate:
            return await _play_humans(wiring, game_id, rng, kept)
    while (await wiring.games.load(game_id)).match.recorded is None:
        await asyncio.sleep(1)  # the workers play the bots and record the result
    return game_id


async def _play_humans(
    wiring: Wiring, game_id: str, rng: random.Random, kept: dict[int, Any]
) -> str:
    while True:
        loaded = await wiring.games.load(game_id)
        if loaded.match.recorded is not None:
            return game_id
        if loaded.engine.result(loaded.match) is not None:
            said = await record_result(wiring.games, wiring.stats, game_id)
            if (await wiring.games.load(game_id)).match.recorded is None:
                raise RuntimeError(f"game {game_id}: {said}")
        else:
            await _human_act(wiring, game_id, rng, kept)


def _worker_env(url: str, args: argparse.Namespace) -> dict[str, str]:
    extra = {
        "STAKEOUT_ARCHIVE_AFTER_SECONDS": str(args.window),
        "STAKEOUT_ARCHIVE_TTL_SECONDS": str(args.archive_ttl),
        "STAKEOUT_REMAINS_GRACE_SECONDS": str(args.remains_grace),
    }
    if args.job_result_ttl is not None:
        extra["STAKEOUT_JOB_RESULT_TTL_SECONDS"] = str(args.job_result_ttl)
    return service_env(url, **extra)


class Played:
    """What one batch of games measured (a plain class, as `Tally`)."""

    def __init__(self, tallies: dict[str, Tally], seconds: float, hot: Families, peak: int):
        self.tallies, self.seconds, self.hot, self.peak = tallies, seconds, hot, peak
        self.archived_at_hot = 0


async def _batch(
    wiring: Wiring, client: Any, games: int, humans: bool, at_once: int
) -> tuple[Played, list[str]]:
    """Play ``games`` games, each measured once its result is recorded (its follow-up, on
    a worker, schedules its archive); the families the moment the last is recorded."""
    tallies: dict[str, Tally] = {name: Tally() for name, _, _ in KINDS}
    gate = asyncio.Semaphore(at_once)
    started = time.monotonic()
    peak = 0
    playing = True

    async def sample() -> None:
        nonlocal peak
        while playing:
            peak = max(peak, int((await client.info("memory"))["used_memory"]))
            await asyncio.sleep(1)

    async def one(i: int) -> str:
        kind = KINDS[i % len(KINDS)]
        game_id = await _play(wiring, kind, humans, i, gate)
        loaded = await wiring.games.load(game_id)
        tally = tallies[kind[0]]
        tally.events.append(loaded.match.version)
        tally.hot.append(await _game_bytes(client, game_id))
        return game_id

    sampler = asyncio.create_task(sample())
    ids = await asyncio.gather(*(one(i) for i in range(games)))
    playing = False
    await sampler
    played = Played(tallies, time.monotonic() - started, await _families(client), peak)
    states = [await wiring.store.state(g) for g in ids]
    played.archived_at_hot = sum(where == "archived" for where, _, _ in states)
    return played, ids


async def _archived(wiring: Wiring, client: Any, ids: list[str], tallies: dict[str, Tally]) -> None:
    """Wait until the workers archived every game; measure the archives."""
    waited = time.monotonic()
    while True:
        states = [await wiring.store.state(g) for g in ids]
        left = sum(where != "archived" for where, _, _ in states)
        if not left:
            break
        if time.monotonic() - waited > 900:
            raise RuntimeError(f"{left} games were not archived (are the workers up?)")
        await asyncio.sleep(1)
    for i, game_id in enumerate(ids):
        tallies[KINDS[i % len(KINDS)][0]].archived.append(await _game_bytes(client, game_id))


async def run(args: argparse.Namespace, url: str, folder: Path) -> None:
    humans = args.seats == "humans"
    client = redis.asyncio.Redis.from_url(url)
    settings = Settings(
        redis_url=url, archive_after_seconds=args.window, max_active_games=0,
    )  # fmt: skip
    with running(folder) as procs:
        for _ in range(2):
            procs.worker(_worker_env(url, args))
        try:
            # The workers' timeout: the bench loads the machine as no API request path would.
            async with open_wiring(settings, WORKER_TIMEOUT_SECONDS) as wiring:
                await wiring.account_feed.touch(OWNER)  # the key reads its feed
                await asyncio.sleep(5)  # the workers up (their registrations, metrics)
                before = await _families(client)
                played, ids = await _batch(wiring, client, args.games, humans, args.at_once)
                print(f"{args.games} games played in {played.seconds:.0f} s")
                await _archived(wiring, client, ids, played.tallies)
                archived = await _families(client)
                print(f"archived; waiting {args.settle} s")
                await asyncio.sleep(args.settle)
                after = await _families(client)
                feed_entries = int(await client.xlen(feed_key(OWNER)))
        finally:
            await client.aclose()
    _report(args, played, (before, archived, after), feed_entries)


def _kb(n: float) -> str:
    return f"{n / 1024:,.1f} KB" if n < 1024 * 1024 else f"{n / 1024 / 1024:,.2f} MB"


def _report(
    args: argparse.Namespace, played: Played, moments: tuple[Families, ...], fed: int
) -> None:
    before, at_archive, after = moments
    seats = "humans, an Idempotency-Key per act" if args.seats == "humans" else "random bots"
    ttl = "default" if args.job_result_ttl is None else f"{args.job_result_ttl} s"
    print(f"\n{args.games} games, {seats}; RQ's records of finished jobs: {ttl}\n")
    print("| kind | games | events per game | hot per game | archived per game"
          " | archived / hot | target <= 15 % |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for name, tally in played.tallies.items():
        kept, archived = statistics.mean(tally.hot), statistics.mean(tally.archived)
        ratio = archived / kept
        print(
            f"| {name} | {len(tally.hot)} | {statistics.mean(tally.events):,.0f}"
            f" (max {max(tally.events):,}) | {_kb(kept)} | {_kb(archived)} | {ratio:.1%} |"
            f" {'met' if ratio <= TARGET_RATIO else 'MISSED'} |"
        )
    hot = played.hot
    print(f"\n(the hot moment: {played.archived_at_hot} of {args.games} already archived)\n")
    print("| family | keys before | before | keys hot | hot | keys after | after |")
    print("|---|---|---|---|---|---|---|")
    for name in sorted(set(before.used) | set(hot.used) | set(after.used)):
        print(
            f"| `{name}` | {before.keys.get(name, 0):,} | {_kb(before.used.get(name, 0))}"
            f" | {hot.keys.get(name, 0):,} | {_kb(hot.used.get(name, 0))}"
            f" | {after.keys.get(name, 0):,} | {_kb(after.used.get(name, 0))} |"
        )
    print(
        f"| keys summed | | {_kb(before.total())} | | {_kb(hot.total())} | | {_kb(after.total())} |"
    )
    print(
        f"| used_memory | | {_kb(before.memory)} | | {_kb(hot.memory)} (peak"
        f" {_kb(played.peak)}) | | {_kb(after.memory)} |"
    )
    print(f"\nBy group (archived: the moment the last game was archived; after: {args.settle} s"
          " later)\n")  # fmt: skip
    print("| group | before | hot | archived | after | after - before |")
    print("|---|---|---|---|---|---|")
    at = [m.groups() for m in (before, hot, at_archive, after)]
    for name, _ in GROUPS:
        cells = " | ".join(f"{_kb(g[name][1])} ({g[name][0]:,})" for g in at)
        print(f"| {name} | {cells} | {_kb(at[3][name][1] - at[0][name][1])} |")
    print(
        "| used_memory | "
        + " | ".join(_kb(m.memory) for m in (before, hot, at_archive, after))
        + f" | {_kb(after.memory - before.memory)} |"
    )
    rq_hot = sum(b for f, b in hot.used.items() if f.startswith("rq:"))
    rq_after = sum(b for f, b in after.used.items() if f.startswith("rq:"))
    print(f"\nrq:* hot {_kb(rq_hot)}, after {_kb(rq_after)}: {_kb(rq_after / args.games)} a game")
    grown = (after.memory - before.memory) / before.memory
    print(
        f"used_memory after / before: {after.memory / before.memory:.2f}"
        f" ({grown:+.1%}; target within {TARGET_AFTER:.0%}:"
        f" {'met' if grown <= TARGET_AFTER else 'MISSED'})"
    )
    skip = FEED_FAMILIES
    kept = (after.total(skip) - before.total(skip)) / max(before.total(skip), 1)
    print(
        f"keys but the account feed and its seen marks (bounded by design): "
        f"{_kb(before.total(skip))} before, {_kb(after.total(skip))} after ({kept:+.1%})"
    )
    seen_keys = after.keys.get(FEED_FAMILIES[1], 0)
    seen = after.used.get(FEED_FAMILIES[1], 0)
    feed = after.used.get(FEED_FAMILIES[0], 0)
    if seen_keys and fed:
        print(
            f"account feed: {fed:,} entries, {_kb(feed)} ({feed / fed:,.0f} bytes an entry;"
            f" at its cap of {FEED_LENGTH:,}: {_kb(feed / fed * FEED_LENGTH)});"
            f" feed:seen: {seen_keys:,} marks, {seen / seen_keys:,.0f} bytes each,"
            f" {_kb(seen / args.games)} a game (a day)"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--seats", choices=("bots", "humans"), default="bots")
    parser.add_argument("--window", type=int, default=60, help="seconds before archiving")
    parser.add_argument("--settle", type=int, default=300, help="seconds after archiving")
    parser.add_argument(
        "--archive-ttl", type=int, default=0, help="STAKEOUT_ARCHIVE_TTL_SECONDS (0: forever)"
    )
    parser.add_argument(
        "--remains-grace",
        type=int,
        default=24 * 3600,
        help="STAKEOUT_REMAINS_GRACE_SECONDS: per-game entries pruned this long after the archive",
    )
    parser.add_argument("--at-once", type=int, default=8, help="games made at once")
    parser.add_argument(
        "--job-result-ttl", type=int, default=None, help="STAKEOUT_JOB_RESULT_TTL_SECONDS"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, embedded_redis(Path(folder) / "valkey") as url:
        asyncio.run(run(args, url, Path(folder)))


if __name__ == "__main__":
    main()
