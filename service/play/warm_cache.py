"""The warm cache of games: each process keeps the games it served as immutable
snapshots (see service/play/game_service.py and docs/design-move-path.md), and finds out
when the store went behind one of them.

`entry` is the one call a game is loaded by: the cached game, else a cold load (the game's
snapshot and the entries after it, in one round trip) put in the cache. `latest` reads the
entries after the cached version (one round trip) and folds them in. A store found behind a
snapshot (shorter, or another entry at the snapshot's version: a restore, a failover to a
lagging replica) drops the whole cache and reloads the games it held; `/readyz` reports it
meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from domain import registry
from domain.match import Act, Match, MatchEngine, event_union
from service.play import snapshots
from service.play.errors import Contention, GameNotFound
from service.play.records import GameMeta, Loaded, Versioned
from service.play.snapshots import snapshot_format
from service.store.event_store import EventStore, Opening, StoredEvent
from service.telemetry.metrics import STORE_REGRESSIONS

log = logging.getLogger("stakeout.games")


class Codec:
    """A game's event decoder and encoder, one per game (kind) and process."""

    def __init__(self, engine: MatchEngine) -> None:
        self.decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(event_union(engine.game))
        self.encoder = msgspec.json.Encoder()
        self.acts: msgspec.json.Decoder[Act] = msgspec.json.Decoder(Act)

    def fold(self, engine: MatchEngine, match: Match | None, entry: StoredEvent) -> Match:
        """``match`` with a stored entry folded in; in a game with a clock, the banks are
        charged and credited at an act's first entry (its act is read only then)."""
        event = self.decoder.decode(entry.data)
        if match is None or match.banks is None:
            return engine.fold(match, event)
        act = self.acts.decode(entry.cause) if entry.cause is not None else None
        return engine.fold_stored(match, event, entry.at_ms, act)


@dataclass
class CachedGame:
    """A game as the cache holds it: its latest snapshot, its seed, its act lock."""

    loaded: Loaded
    seed: bytes
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one act at a time per game

    def advance(self, loaded: Loaded) -> Loaded:
        """Keep the newer snapshot; returns the one now cached."""
        if loaded.match.version > self.loaded.match.version:
            self.loaded = loaded
        return self.loaded


class StoreBehind(Exception):
    """The store holds less than a cached snapshot (handled inside the cache)."""


class WarmCache:
    """At most ``cache_size`` games, the least recently used dropped first."""

    def __init__(self, store: EventStore, cache_size: int = 2048) -> None:
        self.store = store
        self.cache_size = cache_size
        self._games: OrderedDict[str, CachedGame] = OrderedDict()
        self._codecs: dict[str, Codec] = {}
        # The store went backwards: how often, when last, and the reload under way.
        self.regressions = 0
        self.last_regression_ms: int | None = None
        self._reload: asyncio.Task[None] | None = None

    @property
    def reloading(self) -> bool:
        return self._reload is not None and not self._reload.done()

    def codec(self, engine: MatchEngine) -> Codec:
        name = engine.game.name
        if name not in self._codecs:
            self._codecs[name] = Codec(engine)
        return self._codecs[name]

    async def cold(self, game_id: str) -> CachedGame:
        """Load a game (one round trip): from its snapshot and the entries after it, else
        from its whole stream; and cache it."""
        opening = await self.store.opening(game_id, snapshot_format())
        loaded = self._opened(game_id, opening)
        if loaded is None:  # a snapshot this code cannot read: fold the whole stream
            opening = await self.store.opening(game_id)
            loaded = self._opened(game_id, opening)
        assert loaded is not None
        assert opening.seed is not None
        seed = opening.seed
        entry = self._games.get(game_id)
        if entry is not None:  # another request loaded it meanwhile
            entry.advance(loaded)
            return entry
        entry = CachedGame(loaded, seed)
        self._games[game_id] = entry
        while len(self._games) > self.cache_size:
            self._games.popitem(last=False)
        return entry

    def _opened(self, game_id: str, opening: Opening) -> Loaded | None:
        """The game as its opening read holds it; None if its snapshot cannot be read."""
        raw, seed, stored = opening.meta, opening.seed, opening.events
        if raw is None or "meta" not in raw or seed is None:
            raise GameNotFound(game_id)
        meta = msgspec.json.decode(raw["meta"], type=GameMeta)
        engine = registry.engine_for(meta.game)
        if engine is None:
            raise GameNotFound(game_id)
        if not stored:
            raise GameNotFound(game_id)
        codec = self.codec(engine)
        match: Match | None = None
        if opening.snapshot is not None:
            try:
                match = snapshots.decode(engine, opening.snapshot)
            except (msgspec.DecodeError, msgspec.ValidationError):
                log.warning("game %s: its snapshot does not decode", game_id)
                return None
            if match.version != opening.snapshot_version or stored[0].version != match.version:
                return None
            stored = stored[1:]  # the snapshot's own entry: folded into it
        for entry in stored:
            match = codec.fold(engine, match, entry)
        assert match is not None
        last = opening.events[-1]
        return Loaded(game_id, engine, match, meta, last.tip, last.at_ms)

    async def entry(self, game_id: str) -> CachedGame:
        """The game as cached, else loaded cold (its snapshot and the entries after it, one
        round trip) and cached: the one call the game service loads a game by."""
        entry = self._games.get(game_id)
        if entry is None:
            return await self.cold(game_id)
        self._games.move_to_end(game_id)
        return entry

    async def latest(self, game_id: str) -> Loaded:
        """The game at its latest version (warm: one round trip for the tail)."""
        for _ in range(3):
            entry = self._games.get(game_id)
            if entry is None:
                return (await self.cold(game_id)).loaded
            self._games.move_to_end(game_id)
            loaded = entry.loaded
            tail = await self.store.catch_up(game_id, loaded.match.version, loaded.tip)
            if tail.status == "behind":
                self.behind(game_id, loaded.match.version, tail.version)
                continue
            return entry.advance(self.fold(loaded, tail.events))
        raise Contention(f"game {game_id} keeps changing under a reload; retry")

    def fold(self, loaded: Loaded, stored: Sequence[StoredEvent]) -> Loaded:
        """``loaded`` with ``stored`` (the entries right after it) folded in: a new one."""
        if not stored:
            return loaded
        engine, match = loaded.engine, loaded.match
        codec = self.codec(engine)
        for entry in stored:
            if entry.version != match.version + 1:
                raise StoreBehind(f"entry {entry.version} after version {match.version}")
            match = codec.fold(engine, match, entry)
        last = stored[-1]
        return Loaded(loaded.game_id, engine, match, loaded.meta, last.tip, last.at_ms)

    def behind(self, game_id: str, cached: int, found: int) -> None:
        """The store holds less than our snapshot: drop the cache, reload what it held."""
        self.regressions += 1
        self.last_regression_ms = _now_ms()
        STORE_REGRESSIONS.inc()
        held = [g for g in self._games if g != game_id]
        self._games.clear()
        log.warning(
            "the event store went backwards: game %s is at version %d, the cache held %d;"
            " dropping the cache and reloading %d games",
            game_id,
            found,
            cached,
            len(held),
            extra={"game_id": game_id},
        )
        if held and not self.reloading:
            self._reload = asyncio.get_running_loop().create_task(self._reload_games(held))

    async def _reload_games(self, game_ids: list[str]) -> None:
        for game_id in game_ids:
            if game_id in self._games:
                continue
            try:
                await self.cold(game_id)
            except GameNotFound:  # gone meanwhile (its archive expired, or exported and
                continue  # deleted): nothing to reload, and nothing wrong
            except Exception:  # a reload is an optimisation: requests load on demand
                log.warning("could not reload game %s", game_id, exc_info=True)

    async def check_cached(self, sample: int = 16) -> int | None:
        """Compare the most recently used snapshots with their streams (one round trip);
        returns how many the store is behind (and handles them), None with nothing cached.
        For `/readyz`."""
        # The cached versions as they are now, before the read: an act that lands while
        # the read is away advances the cache past what the read saw, and is not a store
        # gone backwards.
        recent = [(game_id, entry.loaded.match.version) for game_id, entry in self._games.items()]
        recent = recent[-sample:]
        if not recent:
            return None
        versions = await self.store.versions([game_id for game_id, _ in recent])
        behind = 0
        for (game_id, cached), version in zip(recent, versions, strict=True):
            if version < cached:
                behind += 1
                if game_id in self._games:
                    self.behind(game_id, cached, version)
        return behind

    def decode(self, loaded: Loaded, stored: Sequence[StoredEvent]) -> list[Versioned]:
        """Stored entries of ``loaded``'s game as its events."""
        codec = self.codec(loaded.engine)
        return [Versioned(s.version, codec.decoder.decode(s.data), s.at_ms) for s in stored]


def _now_ms() -> int:
    return int(time.time() * 1000)
