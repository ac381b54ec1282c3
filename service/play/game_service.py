"""The application service: load a game, decide one act on it, store the events.

Controllers and RQ jobs both come through here, so a bot's move takes exactly the path a
client's move takes: `act` for an act that is fixed before it is decided (a client's move,
a commitment, a resignation, a timeout), `act_for_bot` for a bot's, chosen on the latest
state. The game's secret seed is handed only to what draws: the rules' `perform` and a
bot's choice.

The warm cache (`WarmCache`, service/play/warm_cache.py; see docs/design-move-path.md).
Each process keeps the games it served as immutable snapshots (`Loaded`: a `Match` that is
never changed in place, `MatchEngine.fold` returns a new one). A request takes one
snapshot and uses only it, so it never sees another request's half-folded state; a newer
snapshot replaces an older one in the cache, never the other way round.

- An act costs one round trip: it is decided on the cached snapshot and sent to the append
  script with the version and tip it was decided on. If another writer got there first,
  the script answers with the entries this process missed: the snapshot catches up and the
  act is decided again. A refused act is checked once against the store (its Idempotency-Key
  first, then the entries since the snapshot) before the refusal stands, so a stale cache
  never refuses a legal act and a retry always gets its first answer.
- A read (`load`) costs one round trip: the entries after the cached version.
- The cache advances from what this process appended (the events it just decided) or read,
  never by reading the tail again after its own append.
- If the store is found behind a snapshot (shorter, or another entry at the snapshot's
  version: a restore, a failover to a lagging replica), the whole cache is dropped, the
  games it held are reloaded from their streams, and `/readyz` reports it meanwhile.

Follow-up work after an act (bot turns, deadlines, webhooks, scoring) is not done here: the
append script writes an outbox entry with the events (service/store/outbox.py), and the
dispatchers on the workers do it (service/follow_ups/dispatcher.py).
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from domain import registry
from domain.errors import DomainError
from domain.match import Act, Clock, Match, SeatSpec
from domain.rng import new_seed
from service.play.errors import (
    Contention,
    GameExists,
    GameNotFound,
    IdempotencyMismatch,
    VersionMismatch,
)
from service.play.records import (
    Applied,
    Created,
    GameMeta,
    Loaded,
    Submission,
    Versioned,
    token_hash,
)
from service.play.warm_cache import CachedGame, WarmCache
from service.store.event_store import (
    Appended,
    Batch,
    EventStore,
    StoredEvent,
    Tail,
    tip_of,
)
from service.telemetry.metrics import (
    APPEND_CONFLICTS,
    IDEMPOTENT_REPLAYS,
    count_act,
)

log = logging.getLogger("stakeout.games")

# A bot's act, chosen on the latest state; ``bytes`` is the game's seed, for its draws.
BotChoice = Callable[[Loaded, bytes], Act]

MAX_RETRIES = 16


@dataclass(frozen=True)
class NewGame:
    """A game to create. ``game_id``: chosen by the caller (a rematch), else random; with
    ``late_tokens`` its human seats get their tokens later (service/play/access.py); with
    ``token_hashes`` its seats' tokens were made by the caller, which hands over only their
    hashes (a matchmaking ticket's seat token); ``invite_hashes``: its invite codes' hashes,
    kept in its meta so that archiving it deletes them."""

    owner: str
    game: str
    options: dict[str, Any]
    seats: Sequence[SeatSpec]
    private: bool = False
    turn_seconds: int | None = None
    away_seconds: int | None = None
    game_id: str | None = None
    late_tokens: bool = False
    public: bool = False
    rematch_of: str | None = None
    token_hashes: Sequence[str | None] | None = None
    clock: Clock | None = None
    invite_hashes: Sequence[str] = ()


@dataclass(frozen=True)
class _Decided:
    """An act decided on a snapshot: its events, or why it is refused."""

    act: Act | None
    events: list[Any]
    refusal: Exception | None
    base: Match | None = None  # the match it was decided on (its banks charged)
    at_ms: int = 0  # the act's time


@dataclass(frozen=True, slots=True)
class _BotAct:
    """A bot's act as `_apply` takes it: chosen on each attempt's state, not fixed."""

    game_id: str
    choose: BotChoice
    key: str
    fingerprint: str = ""
    expected_version: None = None
    grants: None = None


def _decided(
    loaded: Loaded, seed: bytes, submission: Submission | _BotAct, now_ms: int
) -> _Decided:
    match = loaded.match
    expected = submission.expected_version
    if expected is not None and expected != match.version:
        return _Decided(None, [], VersionMismatch(match.version))
    # In a game with a clock the act is decided on the banks charged up to its own time
    # (the time its events are stored with), so a replay re-derives the same decision.
    banks = match.banks
    charged = match if banks is None else loaded.engine.charged(match, now_ms, loaded.running)
    try:
        # Only a bot's choice is handed the seed (it draws); a submitted act is fixed.
        act = submission.choose(loaded, seed) if isinstance(submission, _BotAct) else submission.act
        return _Decided(act, loaded.engine.perform(charged, act, seed), None, charged, now_ms)
    except DomainError as exc:
        return _Decided(None, [], exc)


@dataclass(frozen=True)
class _Step:
    """Where an attempt left an act: answered (``applied``), or to decide again on
    ``loaded`` (``checked``: just confirmed to be the stream's latest)."""

    applied: Applied | None
    entry: CachedGame
    loaded: Loaded
    checked: bool
    # Another writer appended first: the stream's version then (its entries are folded in).
    lost_race: int | None = None


class GameService:
    def __init__(
        self,
        store: EventStore,
        cache_size: int = 2048,
        summarize: Callable[[Loaded], bytes] | None = None,
    ) -> None:
        self.store = store
        self.cache = WarmCache(store, cache_size)
        # The game list's record of a game (service/views/summaries.py), kept with every
        # change: written by the append script itself, no round trip of its own.
        self.summarize = summarize

    @property
    def regressions(self) -> int:
        """How often the store was found behind a cached snapshot (for `/readyz`)."""
        return self.cache.regressions

    @property
    def last_regression_ms(self) -> int | None:
        return self.cache.last_regression_ms

    @property
    def reloading(self) -> bool:
        """Whether the games the cache held are being reloaded after a regression."""
        return self.cache.reloading

    async def check_cached(self, sample: int = 16) -> int | None:
        """How many of the most recently used snapshots the store is behind (for `/readyz`:
        `WarmCache.check_cached`)."""
        return await self.cache.check_cached(sample)

    # ---- creation -------------------------------------------------------------------

    async def create(self, new: NewGame) -> Created:
        """A new game, its opening events appended and its seat tokens made."""
        engine = registry.engine_for(new.game)
        if engine is None:
            raise GameNotFound(new.game)
        game_id = new.game_id or secrets.token_hex(12)
        seed = new_seed()
        events = engine.create(game_id, new.options, new.seats, seed, new.clock)
        tokens = [
            secrets.token_urlsafe(32)
            if s.type == "human" and not new.late_tokens and new.token_hashes is None
            else None
            for s in new.seats
        ]
        hashes = [token_hash(t) if t else None for t in tokens]
        meta = GameMeta(
            game=new.game,
            owner=new.owner,
            seats=list(new.seats),
            token_hashes=list(new.token_hashes) if new.token_hashes is not None else hashes,
            created_ms=_now_ms(),
            private=new.private,
            turn_seconds=new.turn_seconds,
            away_seconds=new.away_seconds,
            public=new.public,
            late_tokens=new.late_tokens or any(s.type == "open" for s in new.seats),
            rematch_of=new.rematch_of,
            invites=list(new.invite_hashes),
        )
        codec = self.cache.codec(engine)
        ok = await self.store.create(
            game_id,
            {"meta": msgspec.json.encode(meta).decode()},
            seed,
            [codec.encoder.encode(e) for e in events],
        )
        if not ok:  # 96 random bits collided: practically impossible, but never overwrite
            raise GameExists(f"a game with id {game_id} exists already")
        await self.store.index_game(new.owner, game_id, meta.created_ms)
        loaded = (await self.cache.cold(game_id)).loaded
        if self.summarize is not None:
            await self.store.keep_summary(game_id, self.summarize(loaded))
        return Created(game_id, loaded.match.version, events[0].seed_commitment, tokens)

    async def snapshot(self, game_id: str) -> Loaded:
        """The cached snapshot, without a round trip when warm (it may be behind the
        stream: good for what never changes, such as the seats and their tokens)."""
        return (await self.cache.entry(game_id)).loaded

    async def seed(self, game_id: str) -> bytes:
        """The game's secret seed (for a bot's draws outside an act: its sealed choice)."""
        return (await self.cache.entry(game_id)).seed

    async def load(self, game_id: str) -> Loaded:
        """The game at its latest version (warm: one round trip for the tail)."""
        return await self.cache.latest(game_id)

    async def exists(self, game_id: str) -> bool:
        """Whether the game's stream holds anything (one round trip; nothing cached)."""
        return await self.store.version(game_id) > 0

    async def at_version(self, loaded: Loaded, version: int) -> Loaded:
        """The game as it was at ``version`` (at least its whole set-up: the events before
        its first act), folded from its stream."""
        stored = await self.store.read(loaded.game_id, after=0, count=loaded.match.version)
        opening = next((i for i, s in enumerate(stored) if s.cause is not None), len(stored))
        codec = self.cache.codec(loaded.engine)
        match: Match | None = None
        kept = stored[: max(version, opening)]
        for entry in kept:  # with their times: a clock's banks
            match = codec.fold(loaded.engine, match, entry)
        if match is None:
            raise GameNotFound(loaded.game_id)
        return Loaded(loaded.game_id, loaded.engine, match, loaded.meta, "", kept[-1].at_ms)

    async def change(
        self, game_id: str, first: int, last: int, before: Loaded | None = None
    ) -> tuple[Loaded, list[Versioned]]:
        """The game as its change of versions ``first`` to ``last`` left it, and that
        change's events. ``before``: the game at ``first - 1``, when the caller has it
        (then only the change is read and folded)."""
        stored = await self.store.read_range(game_id, first, last)
        if before is not None and before.match.version == first - 1:
            return self.cache.fold(before, stored), self.decode(before, stored)
        latest = await self.load(game_id)
        after = latest if latest.match.version == last else await self.at_version(latest, last)
        return after, self.decode(latest, stored)

    # ---- acts -----------------------------------------------------------------------

    async def act(self, submission: Submission) -> Applied:
        """Decide ``submission.act`` on the latest state and append its events atomically.

        Without ``expected_version`` a lost race is decided again on the fresh state (so
        simultaneous commitments of different seats never fail each other); with it, a
        stale version answers `VersionMismatch`. A repeated idempotency key returns the
        first result, also when the act would now be refused.
        """
        return await self._act(submission)

    async def act_for_bot(self, game_id: str, choose: BotChoice, key: str) -> Applied:
        """A bot's act, chosen by ``choose`` on the latest state (again after a lost race),
        under the idempotency ``key`` that makes a retried bot turn harmless."""
        return await self._act(_BotAct(game_id, choose, key))

    async def _act(self, submission: Submission | _BotAct) -> Applied:
        entry = await self.cache.entry(submission.game_id)
        async with entry.lock:
            return await self._apply(entry, submission)

    async def _apply(self, entry: CachedGame, submission: Submission | _BotAct) -> Applied:
        """Decide on the cached snapshot and append (one round trip); a snapshot found
        stale is caught up from what the store answered and decided on again."""
        step = _Step(None, entry, entry.loaded, checked=False)
        for _ in range(MAX_RETRIES):
            entry, loaded = step.entry, step.loaded
            decided = _decided(loaded, entry.seed, submission, _now_ms())
            if decided.refusal is not None or decided.act is None or not decided.events:
                if step.checked:  # the refusal (or nothing to do) stands on the latest state
                    if decided.refusal is not None:
                        raise decided.refusal
                    return Applied(loaded.match.version, [], loaded)
                step = await self._recheck(entry, loaded, submission)
            else:
                step = await self._append(entry, loaded, decided, submission)
                if step.lost_race is not None and submission.expected_version is not None:
                    raise VersionMismatch(step.lost_race)
            if step.applied is not None:
                return step.applied
        raise Contention(f"game {entry.loaded.game_id} is too busy; retry")

    async def _recheck(
        self, entry: CachedGame, loaded: Loaded, submission: Submission | _BotAct
    ) -> _Step:
        """Before a refusal (or "nothing to do") decided on the cached snapshot stands,
        look at the store once: the key's earlier answer first, then what was missed."""
        game_id, version = loaded.game_id, loaded.match.version
        tail = await self.store.catch_up(game_id, version, loaded.tip, submission.key)
        if tail.status == "duplicate":
            applied = self._duplicate(entry, tail, submission.fingerprint)
            return _Step(applied, entry, loaded, checked=True)
        if tail.status == "behind":
            self.cache.behind(game_id, version, tail.version)
            entry = await self.cache.cold(game_id)
            return _Step(None, entry, entry.loaded, checked=False)
        return _Step(None, entry, entry.advance(self.cache.fold(loaded, tail.events)), checked=True)

    async def _append(
        self, entry: CachedGame, loaded: Loaded, decided: _Decided, submission: Submission | _BotAct
    ) -> _Step:
        """Append the decided events at the snapshot's version (the script: see
        service/store/event_store.py)."""
        game_id, engine, match = loaded.game_id, loaded.engine, loaded.match
        act, events = decided.act, decided.events
        codec = self.cache.codec(engine)
        encoded = [codec.encoder.encode(e) for e in events]
        now = decided.at_ms
        # The snapshot after the act, folded before the append so that its summary goes
        # with it (dropped if the append loses a race).
        folded = decided.base or match
        for event in events:
            folded = engine.fold(folded, event)
        if folded.banks is not None:
            folded = engine.credited(folded, act)
        after = Loaded(game_id, engine, folded, loaded.meta, tip_of(now, encoded[-1]), now)
        result = await self.store.append(
            Batch(
                game_id,
                match.version,
                encoded,
                now,
                cause=codec.encoder.encode(act),
                tip=loaded.tip,
                key=submission.key,
                fingerprint=submission.fingerprint,
                grants=submission.grants,
                summary=self.summarize(after) if self.summarize is not None else b"",
                seat=_seat_of(act),
            )
        )
        if result.status == "ok":
            return self._appended(entry, after, act, events)
        if result.status == "duplicate":
            applied = self._duplicate(entry, result, submission.fingerprint)
            return _Step(applied, entry, loaded, checked=True)
        if result.status == "missing":
            raise GameNotFound(game_id)
        if result.status == "archived":
            # Only an ended game is archived, and what can still change it (a rematch) is
            # rare: it is made hot again first (a retried key then finds its first answer
            # among the restored records), and archived again later.
            await self.store.restore(game_id)
            entry = await self.cache.cold(game_id)
            return _Step(None, entry, entry.loaded, checked=False)
        if result.status == "behind":
            self.cache.behind(game_id, match.version, result.version)
            entry = await self.cache.cold(game_id)
            return _Step(None, entry, entry.loaded, checked=True)
        APPEND_CONFLICTS.labels(engine.game.name).inc()
        caught_up = entry.advance(self.cache.fold(loaded, result.events))
        return _Step(None, entry, caught_up, checked=True, lost_race=result.version)

    def _appended(self, entry: CachedGame, after: Loaded, act: Any, events: list[Any]) -> _Step:
        """The act is stored (with its outbox entry: its follow-ups are the dispatchers'):
        cache the game as it left it, and answer."""
        count_act(after.engine.game.name, act)
        entry.advance(after)
        now = after.changed_ms
        first = after.match.version - len(events) + 1
        versioned = [Versioned(first + i, e, now) for i, e in enumerate(events)]
        return _Step(Applied(after.match.version, versioned, after), entry, after, checked=True)

    def _duplicate(self, entry: CachedGame, prior: Appended | Tail, fingerprint: str) -> Applied:
        """The answer an idempotency key was first given (a retry), if it was for the same
        request."""
        loaded = entry.loaded
        if prior.fingerprint != fingerprint:
            raise IdempotencyMismatch("this Idempotency-Key was used for a different request")
        IDEMPOTENT_REPLAYS.labels(loaded.engine.game.name).inc()
        first, last = prior.first, prior.version
        events = self.decode(loaded, [s for s in prior.events if first <= s.version <= last])
        return Applied(last, events, loaded, replayed=True)

    def decode(self, loaded: Loaded, stored: Sequence[StoredEvent]) -> list[Versioned]:
        """Stored entries of ``loaded``'s game as its events."""
        return self.cache.decode(loaded, stored)

    async def events_after(
        self, loaded: Loaded, after: int, limit: int | None = None
    ) -> list[Versioned]:
        """The game's events with version > ``after``, oldest first (at most ``limit``)."""
        stored = await self.store.read(loaded.game_id, after=after, count=limit)
        return self.decode(loaded, stored)


def _seat_of(act: Any) -> int | None:
    """The seat an act is by (None: a system act, a creator's abort)."""
    seat = getattr(act, "seat", None)
    return seat if isinstance(seat, int) else None


def _now_ms() -> int:
    return int(time.time() * 1000)
