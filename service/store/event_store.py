"""The event store on Redis (its design, measured: docs/design-move-path.md), one class over
three concerns: a game's stream (`game_streams.py`), its archive once it is over
(`game_archives.py`) and the indexes of games (`game_index.py`); the scripts they run are in
`service/store/scripts/`, what they hand back in `stored_events.py`.

Layout (the whole of it, with every other key, is in `service/store/keys.py`) — every key
of a game shares the hash tag ``{<id>}``, so the store runs unchanged on Redis Cluster:

- ``game:{id}:events``  the stream, one entry per event, entry id ``0-<version>``; never
  trimmed, so ``XLEN`` is the version. Fields: ``e`` the event, ``t`` when (epoch ms); the
  first entry of an act's batch also ``c``, the act, and, for an act sent without an
  idempotency key, ``n``: the append call's nonce and the batch's last version.
- ``game:{id}:idem``    idempotency keys → ``fingerprint|first|last`` of the append they made.
- ``game:{id}:meta``    creation facts: game name, API key id, seat token hashes, seats.
- ``game:{id}:seed``    the secret shuffle seed (hex); only ever read by the server.

Appends run as one server-side script: check the idempotency key, check the expected
version, append, record the key, return the new version — so two writers can never both
win and a retried request never appends twice. The same round trip answers what the caller
needs next: a retry gets the first answer's events, a lost race the entries it missed, and a
caller whose cached state is ahead of the stream (the store went backwards) learns it.
"""

from __future__ import annotations

from service.store.archive import RecentArchives
from service.store.clients import AnyRedis
from service.store.game_archives import ARCHIVED_IDEMPOTENCY_PER_CALLER, GameArchives
from service.store.game_index import GameIndex
from service.store.outbox import Outbox
from service.store.scripts import Scripts, archives, streams
from service.store.stored_events import Appended, Batch, Opening, SealsOf, StoredEvent, Tail, tip_of

# Idempotency records last this long after the last act that recorded one in the game.
IDEMPOTENCY_MS = 24 * 3600 * 1000


class EventStore(GameArchives, GameIndex):
    """Async access to game streams. Holds a client; connects lazily on first use."""

    def __init__(
        self, redis: AnyRedis, idempotency_ms: int = IDEMPOTENCY_MS, archive_ttl_ms: int = 0
    ) -> None:
        """``idempotency_ms``: how long a game's idempotency records last after its last
        act that recorded one; ``archive_ttl_ms``: how long an archive is kept (0:
        forever)."""
        self.redis = redis
        self.idempotency_ms = idempotency_ms
        self.archive_ttl_ms = archive_ttl_ms
        # The scripts of every act and every view read: the lean call path.
        scripts = self._scripts = Scripts(redis)
        self._create = scripts.script(streams.CREATE)
        self._append = scripts.script(streams.APPEND)
        self._catch_up = scripts.script(streams.CATCH_UP)
        # Where each change's outbox entry goes (written by the scripts above).
        self.outbox = Outbox(redis)
        self._opening = scripts.script(streams.OPENING)
        self._state = scripts.script(streams.STATE)
        self._archive = scripts.script(archives.ARCHIVE)
        self._restore = scripts.script(archives.RESTORE)
        self._import = scripts.script(archives.IMPORT)
        self._listed = scripts.script(streams.LISTED)
        self._drop = scripts.script(archives.DROP)
        self._replace = scripts.script(archives.REPLACE)
        self._keep_snapshot = scripts.script(streams.KEEP_SNAPSHOT)
        self.recent = RecentArchives()

    def close(self) -> None:
        """Drop the scripts' shared connection (the client is closed by its owner)."""
        self._scripts.close()


__all__ = [
    "ARCHIVED_IDEMPOTENCY_PER_CALLER",
    "IDEMPOTENCY_MS",
    "Appended",
    "Batch",
    "EventStore",
    "Opening",
    "SealsOf",
    "StoredEvent",
    "Tail",
    "tip_of",
]
