"""Who is at the table: each human seat's presence, kept in Redis beside the game.

Presence is not a fact of the game: it never enters the event log. It lives in one hash per
game, ``game:{<id>}:presence`` (the game's hash tag, so it works on Redis Cluster; no key
spans games), with a TTL renewed on every write:

- ``r<seat>``: when the seat's token last made a request (epoch ms);
- ``f<seat>:<process>``: a lease of a live feed (SSE, NDJSON, a long poll in flight) of the
  seat open in that API process, holding when it was last renewed; the process renews it
  every `LEASE_RENEW_SECONDS` and deletes it when the feed closes, so a lease that is older
  than `LEASE_MS` belongs to a feed whose process died;
- ``l<seat>``: when the seat's last feed in some process closed;
- ``a<seat>``: when a bot began to play the seat's turns because it was away
  (service/play/away.py).

A seat is ``online`` while one of its leases is fresh or within ``STAKEOUT_PRESENCE_SECONDS``
of its last request; else ``away`` since the later of the two, or ``never`` seen.

The writes never cost a request a round trip: `PresenceTracker` notes them in the process
and a task of its own writes them every `FLUSH_SECONDS` (one pipeline for every game noted
meanwhile), and only while the game's event stream exists, so a note flushed after the game
was archived leaves no hash behind. The reads are cached per game for `READ_CACHE_SECONDS`,
and the process's own notes not yet written are laid over them, so a seat always sees
itself online.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Literal

from redis import RedisError

from service.play.records import Loaded
from service.store.clients import AnyRedis
from service.store.keys import events_key, presence_key

log = logging.getLogger("stakeout.presence")

FLUSH_SECONDS = 0.25
LEASE_RENEW_SECONDS = 1.0
LEASE_MS = 3_000
READ_CACHE_SECONDS = 0.5
MEMO_SECONDS = 0.25
# A game's presence outlives the longest away substitution (30 days) a little.
TTL_SECONDS = 35 * 24 * 3600

Status = Literal["online", "away", "never"]

# One game's presence writes, made only while the game's event stream exists: a note taken
# while the game was played may be flushed after the game was archived (the archive deletes
# the presence hash with every other hot key), and must not leave a hash behind it. The same
# hash tag, so it runs on Redis Cluster. KEYS: the presence hash, the events stream. ARGV:
# the TTL, how many fields to delete, those fields, then field/value pairs to set.
# Sent as EVAL, not as a registered script (EVALSHA): the flush's pipeline may be a Redis
# Cluster pipeline, which loads no script on a node that lacks it; the text is short and a
# flush runs at most every `FLUSH_SECONDS`.
_WRITE = """
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
local dropped = tonumber(ARGV[2])
if dropped > 0 then redis.call('HDEL', KEYS[1], unpack(ARGV, 3, 2 + dropped)) end
if #ARGV > 2 + dropped then redis.call('HSET', KEYS[1], unpack(ARGV, 3 + dropped)) end
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
"""


def _write_args(dropped: list[str], writes: Mapping[str, int]) -> list[str | int]:
    pairs = [part for field, value in writes.items() for part in (field, value)]
    return [TTL_SECONDS, len(dropped), *dropped, *pairs]


@dataclass(frozen=True, slots=True)
class SeatPresence:
    """One seat's presence at ``now_ms``: its status, when it was last seen (None: never),
    since when it is away (None: online or never seen), since when a bot plays its turns
    because it is away (None: it does not), and while online, until when."""

    status: Status
    last_seen_ms: int | None
    away_since_ms: int | None = None
    substituted_since_ms: int | None = None
    # Online: when it turns away unless it is seen again (a lease is renewed meanwhile).
    online_until_ms: int | None = None


def _int(raw: bytes | str) -> int:
    return int(raw.decode() if isinstance(raw, bytes) else raw)


def _text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


def seat_presence(
    fields: Mapping[str, int], seat: int, now_ms: int, window_ms: int
) -> SeatPresence:
    """A seat's presence from its game's hash fields (pure)."""
    request = fields.get(f"r{seat}")
    closed = fields.get(f"l{seat}")
    prefix = f"f{seat}:"
    leases = [v for k, v in fields.items() if k.startswith(prefix)]
    seen = [t for t in (request, closed, *leases) if t is not None]
    if not seen:
        return SeatPresence("never", None, substituted_since_ms=fields.get(f"a{seat}"))
    last_seen = max(seen)
    ends = [t + LEASE_MS for t in leases]
    if request is not None:
        ends.append(request + window_ms)
    if closed is not None:
        ends.append(closed)
    online_until = max(ends)
    if online_until > now_ms:
        return SeatPresence("online", min(last_seen, now_ms), online_until_ms=online_until)
    substituted = fields.get(f"a{seat}")
    # A substitution shown is one that began after the seat was last seen: once the
    # player is back (online), a later absence waits for its own.
    shown = substituted if substituted is not None and substituted >= last_seen else None
    return SeatPresence("away", last_seen, online_until, shown)


def seats_presence(
    loaded: Loaded, fields: Mapping[str, int], now_ms: int, window_ms: int
) -> list[SeatPresence | None]:
    """Every seat's presence; None for the seats no person plays (a bot, a resigned seat,
    an open seat)."""
    resigned = set(loaded.match.resigned)
    return [
        seat_presence(fields, i, now_ms, window_ms)
        if spec.type == "human" and i not in resigned
        else None
        for i, spec in enumerate(loaded.match.seats)
    ]


def is_over(loaded: Loaded) -> bool:
    """The game is over: nobody's presence is noted or shown."""
    match = loaded.match
    ended = match.recorded is not None or match.abandoned or match.aborted
    return ended or loaded.result is not None


def now_ms() -> int:
    return int(time.time() * 1000)


class PresenceTracker:
    """The presence of the seats of every game, as this process notes and reads it.

    ``window_seconds`` is ``STAKEOUT_PRESENCE_SECONDS``; 0 turns presence off (nothing is
    noted or read, every seat's presence is None)."""

    def __init__(self, redis: AnyRedis, window_seconds: int) -> None:
        self.redis = redis
        self.window_ms = window_seconds * 1000
        self.on = self.window_ms > 0  # asked on every request: an attribute, not a property
        self.process = secrets.token_hex(6)
        self._requests: dict[str, dict[int, int]] = {}  # not yet written
        self._closed: dict[str, dict[int, int]] = {}  # feeds closed, not yet written
        self._dropped: dict[str, set[int]] = {}  # leases to delete
        self._leases: dict[tuple[str, int], int] = {}  # feeds open here, by game and seat
        self._renewed = 0.0
        self._cache: dict[str, tuple[float, dict[str, int]]] = {}
        # game id -> (when, the seats it was for, every seat's presence): a view's presence
        # worked out once per `MEMO_SECONDS`, not per request; dropped when a seat of the
        # game is noted in a way that may change its status (`_touch`).
        self._memo: dict[
            str, tuple[float, tuple[int, tuple[int, ...]], list[SeatPresence | None]]
        ] = {}
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    # ---- noting ---------------------------------------------------------------------

    def seen(self, game_id: str, seat: int | None, over: bool = False) -> None:
        """The seat's token made a request now (written within `FLUSH_SECONDS`); nothing
        when the game is ``over`` (its archive must not be followed by a presence hash)."""
        if not self.on or over or seat is None or seat < 0:
            return
        self._requests.setdefault(game_id, {})[seat] = now_ms()
        memo = self._memo.get(game_id)
        if memo is not None:
            known = memo[2][seat] if seat < len(memo[2]) else None
            if known is None or known.status != "online":
                del self._memo[game_id]  # its own view shows it online at once
        self._start()

    @contextlib.contextmanager
    def feed_open(self, game_id: str, seat: int | None, over: bool = False) -> Iterator[None]:
        """While the block runs, a live feed of the seat is open in this process (not
        noted when the game is ``over``)."""
        if not self.on or over or seat is None or seat < 0:
            yield
            return
        key = (game_id, seat)
        self._memo.pop(game_id, None)
        self._leases[key] = self._leases.get(key, 0) + 1
        self._renewed = 0.0  # the new lease is written at the next flush
        self._start()
        self._wake.set()
        try:
            yield
        finally:
            left = self._leases[key] - 1
            if left:
                self._leases[key] = left
            else:
                del self._leases[key]
                self._memo.pop(game_id, None)
                self._closed.setdefault(game_id, {})[seat] = now_ms()
                self._dropped.setdefault(game_id, set()).add(seat)
                self._wake.set()

    def _start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), FLUSH_SECONDS)
            self._wake.clear()
            try:
                await self.flush()
            except RedisError as exc:
                log.warning("presence not written: %s: %s", type(exc).__name__, exc)

    async def flush(self) -> int:
        """Write what was noted since the last flush, and renew this process's leases when
        due (one pipeline); how many games were written."""
        requests, self._requests = self._requests, {}
        closed, self._closed = self._closed, {}
        dropped, self._dropped = self._dropped, {}
        writes: dict[str, dict[str, int]] = {}
        for game_id, seats in requests.items():
            writes.setdefault(game_id, {}).update({f"r{s}": ms for s, ms in seats.items()})
        for game_id, seats in closed.items():
            writes.setdefault(game_id, {}).update({f"l{s}": ms for s, ms in seats.items()})
        clock = time.monotonic()
        if self._leases and clock - self._renewed >= LEASE_RENEW_SECONDS:
            self._renewed = clock
            stamp = now_ms()
            for game_id, seat in self._leases:
                writes.setdefault(game_id, {})[f"f{seat}:{self.process}"] = stamp
        gone = {
            game_id: [f"f{s}:{self.process}" for s in seats if (game_id, s) not in self._leases]
            for game_id, seats in dropped.items()
        }
        if not writes and not any(gone.values()):
            return 0
        async with self.redis.pipeline(transaction=False) as pipe:
            for game_id in set(writes) | set(gone):
                keys = (presence_key(game_id), events_key(game_id))
                args = _write_args(gone.get(game_id, []), writes.get(game_id, {}))
                pipe.eval(_WRITE, len(keys), *keys, *args)
            await pipe.execute()
        for game_id in set(gone):
            self._memo.pop(game_id, None)
        for game_id in set(writes) | set(gone):  # what it wrote is known: no read for it
            cached = self._cache.get(game_id)
            if cached is not None:
                deleted = set(gone.get(game_id, ()))
                fields = {k: v for k, v in cached[1].items() if k not in deleted}
                self._cache[game_id] = (cached[0], {**fields, **writes.get(game_id, {})})
        return len(set(writes) | set(gone))

    async def substituted(self, game_id: str, seat: int, since_ms: int) -> None:
        """A bot plays the away seat's turns since ``since_ms`` (service/play/away.py)."""
        keys = (presence_key(game_id), events_key(game_id))
        await self.redis.eval(_WRITE, len(keys), *keys, *_write_args([], {f"a{seat}": since_ms}))
        self._cache.pop(game_id, None)
        self._memo.pop(game_id, None)

    # ---- reading --------------------------------------------------------------------

    async def fields(self, game_id: str, max_age: float = READ_CACHE_SECONDS) -> dict[str, int]:
        """The game's presence hash (read at most ``max_age`` seconds ago by this process),
        with what this process noted and has not written yet laid over it."""
        clock = time.monotonic()
        cached = self._cache.get(game_id)
        if cached is None or clock - cached[0] > max_age:
            raw = await self.redis.hgetall(presence_key(game_id))
            read = {_text(k): _int(v) for k, v in raw.items()}
            if len(self._cache) >= 4096:
                self._cache.clear()
            self._cache[game_id] = cached = (clock, read)
        out = dict(cached[1])
        for seat, ms in self._requests.get(game_id, {}).items():
            out[f"r{seat}"] = max(ms, out.get(f"r{seat}", 0))
        for seat, ms in self._closed.get(game_id, {}).items():
            out[f"l{seat}"] = max(ms, out.get(f"l{seat}", 0))
        stamp = now_ms()
        for lease_game, seat in self._leases:
            if lease_game == game_id:
                out[f"f{seat}:{self.process}"] = stamp
        return out

    async def of(
        self, loaded: Loaded, max_age: float = READ_CACHE_SECONDS
    ) -> list[SeatPresence | None] | None:
        """Every seat's presence now (None: presence is off). Nobody's once the game is
        over: presence is of a table being played (and an archived game keeps none)."""
        if not self.on:
            return None
        if is_over(loaded):
            return [None] * len(loaded.match.seats)
        clock = time.monotonic()
        seats = (id(loaded.match.seats), tuple(loaded.match.resigned))
        memo = self._memo.get(loaded.game_id)
        if memo is not None and memo[1] == seats and clock - memo[0] < min(max_age, MEMO_SECONDS):
            return memo[2]
        fields = await self.fields(loaded.game_id, max_age)
        found = seats_presence(loaded, fields, now_ms(), self.window_ms)
        if len(self._memo) >= 4096:
            self._memo.clear()
        self._memo[loaded.game_id] = (clock, seats, found)
        return found

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        with contextlib.suppress(RedisError, RuntimeError):
            await self.flush()
