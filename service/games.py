"""The application service: load a game, run one decision against it, store the events.

Controllers and RQ jobs both come through here, so a bot's move takes exactly the path a
client's move takes. Games are kept warm in a bounded in-process cache; each request reads
only the tail of the stream since the cached version (never a full replay once warm), so
several API processes can serve the same game.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from domain import registry
from domain.match import Act, Match, Rules, SeatSpec, event_union
from domain.rng import new_seed
from service.observability import APPEND_CONFLICTS, IDEMPOTENT_REPLAYS, MOVES_APPLIED, act_kind
from service.store import EventStore, StoredEvent

# A decision names the act to perform given the latest state (a bot's choice depends on it).
Decision = Callable[[Rules, Match, bytes], Act]

MAX_RETRIES = 16


class GameNotFound(Exception):
    pass


class VersionMismatch(Exception):
    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


class IdempotencyMismatch(Exception):
    """An Idempotency-Key was reused for a different request."""


class Contention(Exception):
    """Too many concurrent writers; the client may retry."""


class GameMeta(msgspec.Struct, frozen=True):
    game: str
    owner: str
    seats: list[SeatSpec]
    token_hashes: list[str | None]
    created_ms: int
    private: bool = False
    turn_seconds: int | None = None


@dataclass
class Loaded:
    game_id: str
    rules: Rules
    match: Match
    meta: GameMeta


@dataclass(frozen=True)
class Versioned:
    version: int
    event: Any
    at_ms: int = 0


@dataclass(frozen=True)
class Applied:
    version: int
    events: list[Versioned]
    replayed: bool = False


@dataclass(frozen=True)
class Created:
    game_id: str
    version: int
    seed_commitment: str
    tokens: list[str | None]


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class _Codec:
    def __init__(self, rules: Rules) -> None:
        self.decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(event_union(rules.game))
        self.encoder = msgspec.json.Encoder()


@dataclass(frozen=True)
class Change:
    """What just happened to a game: who acted (None: creation, scoring) and when."""

    acted_seat: int | None
    at_ms: int


OnChange = Callable[[Loaded, Change], Awaitable[None]]


@dataclass
class _Entry:
    loaded: Loaded
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    seed: bytes | None = None  # immutable once created: read from Redis once per process


class GameService:
    def __init__(
        self,
        store: EventStore,
        cache_size: int = 2048,
        on_change: OnChange | None = None,
    ) -> None:
        self.store = store
        self.cache_size = cache_size
        self.on_change = on_change
        self._cache: OrderedDict[str, _Entry] = OrderedDict()
        self._codecs: dict[str, _Codec] = {}

    def codec(self, rules: Rules) -> _Codec:
        name = rules.game.name
        if name not in self._codecs:
            self._codecs[name] = _Codec(rules)
        return self._codecs[name]

    # ---- creation -------------------------------------------------------------------

    async def create(
        self,
        owner: str,
        game: str,
        options: dict[str, Any],
        seats: Sequence[SeatSpec],
        private: bool = False,
        turn_seconds: int | None = None,
    ) -> Created:
        rules = registry.rules_for(game)
        if rules is None:
            raise GameNotFound(game)
        game_id = secrets.token_hex(12)
        seed = new_seed()
        events = rules.create(game_id, options, seats, seed)
        tokens = [secrets.token_urlsafe(32) if s.type == "human" else None for s in seats]
        meta = GameMeta(
            game=game,
            owner=owner,
            seats=list(seats),
            token_hashes=[token_hash(t) if t else None for t in tokens],
            created_ms=_now_ms(),
            private=private,
            turn_seconds=turn_seconds,
        )
        codec = self.codec(rules)
        ok = await self.store.create(
            game_id,
            {"meta": msgspec.json.encode(meta).decode()},
            seed,
            [codec.encoder.encode(e) for e in events],
        )
        if not ok:  # 96 random bits collided: practically impossible, but never overwrite
            raise Contention("game id collision")
        await self.store.index_game(owner, game_id, meta.created_ms)
        loaded = await self.load(game_id)
        if self.on_change is not None:
            await self.on_change(loaded, Change(None, meta.created_ms))
        return Created(game_id, loaded.match.version, events[0].seed_commitment, tokens)

    # ---- loading --------------------------------------------------------------------

    async def _meta(self, game_id: str) -> GameMeta:
        raw = await self.store.meta(game_id)
        if raw is None or "meta" not in raw:
            raise GameNotFound(game_id)
        return msgspec.json.decode(raw["meta"], type=GameMeta)

    async def load(self, game_id: str) -> Loaded:
        """The game at its latest version (warm: reads only the tail of its stream)."""
        entry = self._cache.get(game_id)
        if entry is None:
            meta = await self._meta(game_id)
            rules = registry.rules_for(meta.game)
            if rules is None:
                raise GameNotFound(game_id)
            stored = await self.store.read(game_id)
            codec = self.codec(rules)
            match = rules.replay([codec.decoder.decode(s.data) for s in stored])
            entry = self._cache.get(game_id) or _Entry(Loaded(game_id, rules, match, meta))
            self._cache[game_id] = entry
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        self._cache.move_to_end(game_id)
        async with entry.lock:
            loaded = entry.loaded
            tail = await self.store.read(game_id, after=loaded.match.version)
            codec = self.codec(loaded.rules)
            for stored_event in tail:
                if stored_event.version == loaded.match.version + 1:
                    loaded.rules.fold(loaded.match, codec.decoder.decode(stored_event.data))
            return Loaded(game_id, loaded.rules, loaded.match, loaded.meta)

    async def _seed(self, game_id: str) -> bytes:
        entry = self._cache.get(game_id)
        if entry is not None and entry.seed is not None:
            return entry.seed
        seed = await self.store.seed(game_id)
        if entry is not None:
            entry.seed = seed
        return seed

    # ---- decisions ------------------------------------------------------------------

    async def apply(
        self,
        game_id: str,
        decide: Decision,
        idempotency_key: str | None = None,
        fingerprint: str = "",
        if_match: int | None = None,
    ) -> Applied:
        """Run ``decide`` on the latest state and append its events atomically.

        Without ``if_match`` a lost race is retried on the fresh state (so simultaneous
        commitments of different seats never fail each other); with it, a stale version
        answers `VersionMismatch`. A repeated idempotency key returns the first result.
        """
        for _ in range(MAX_RETRIES):
            loaded = await self.load(game_id)
            if idempotency_key is not None:
                prior = await self._replayed(loaded, idempotency_key, fingerprint)
                if prior is not None:
                    return prior
            if if_match is not None and if_match != loaded.match.version:
                raise VersionMismatch(loaded.match.version)
            seed = await self._seed(game_id)
            act = decide(loaded.rules, loaded.match, seed)
            events = loaded.rules.perform(loaded.match, act, seed)
            if not events:
                return Applied(loaded.match.version, [])
            codec = self.codec(loaded.rules)
            result = await self.store.append(
                game_id,
                loaded.match.version,
                [codec.encoder.encode(e) for e in events],
                idempotency_key,
                fingerprint,
                cause=codec.encoder.encode(act),
            )
            if result.status == "duplicate":
                return await self._duplicate(
                    loaded, result.first, result.version, result.fingerprint, fingerprint
                )
            if result.status == "missing":
                raise GameNotFound(game_id)
            if result.status == "conflict":
                APPEND_CONFLICTS.labels(loaded.rules.game.name).inc()
                if if_match is not None:
                    raise VersionMismatch(result.version)
                continue
            MOVES_APPLIED.labels(loaded.rules.game.name, act_kind(act)).inc()
            first = loaded.match.version + 1
            after = await self.load(game_id)
            if self.on_change is not None:
                seat = getattr(act, "seat", None)
                await self.on_change(
                    after, Change(seat if isinstance(seat, int) else None, result.at_ms)
                )
            return Applied(
                result.version,
                [Versioned(first + i, e, result.at_ms) for i, e in enumerate(events)],
            )
        raise Contention(f"game {game_id} is too busy; retry")

    async def _replayed(self, loaded: Loaded, key: str, fingerprint: str) -> Applied | None:
        prior = await self.store.idempotent(loaded.game_id, key)
        if prior is None:
            return None
        return await self._duplicate(
            loaded, prior.first, prior.version, prior.fingerprint, fingerprint
        )

    async def _duplicate(
        self, loaded: Loaded, first: int, last: int, prior: str, fingerprint: str
    ) -> Applied:
        if prior != fingerprint:
            raise IdempotencyMismatch("this Idempotency-Key was used for a different request")
        IDEMPOTENT_REPLAYS.labels(loaded.rules.game.name).inc()
        stored = await self.store.read_range(loaded.game_id, first, last)
        return Applied(last, self._decode(loaded, stored), replayed=True)

    def _decode(self, loaded: Loaded, stored: Sequence[StoredEvent]) -> list[Versioned]:
        codec = self.codec(loaded.rules)
        return [Versioned(s.version, codec.decoder.decode(s.data), s.at_ms) for s in stored]

    async def events(self, game_id: str, after: int, limit: int) -> tuple[Loaded, list[Versioned]]:
        loaded = await self.load(game_id)
        stored = await self.store.read(game_id, after=after, count=limit)
        return loaded, self._decode(loaded, stored)


def _now_ms() -> int:
    import time

    return int(time.time() * 1000)
