"""Every Redis key the service and the workers use: the whole layout, in one place.

Nothing else spells a key (`tests/test_redis_keys.py` checks it). The event store's Redis
is read and written by the event store (`service/store/event_store.py`), the live feeds
(`service/live/feed.py`) and the store objects of `service/stores.py`, each with its own client;
no other module reaches for one (`tests/test_store_access.py`). The strings are the stored
format: a key renamed here is data lost, so they never change. On Redis Cluster the part in
braces is the hash tag: the keys that one script or one transaction touches share it (a
game's keys share ``{<game id>}``, an API key's ``{<API key id>}``).

The event store's Redis (``REDIS_URL``):

================================  ======  =========================================  =======
key                               type    holds                                      TTL
================================  ======  =========================================  =======
``game:{<id>}:events``            stream  the game's events, entry id ``0-<version>``  none
``game:{<id>}:idem``              hash    idempotency field -> ``fingerprint|first|  setting
                                          last`` of the append it made (fields
                                          below)
``game:{<id>}:meta``              hash    creation facts: game, owner, seats, token  none
                                          hashes, options
``game:{<id>}:seed``              string  the secret shuffle seed (hex)              none
``game:{<id>}:seat_tokens``       hash    ``s<seat>`` -> token hash, ``h<hash>`` ->  none
                                          seat (tokens granted after creation)
``game:{<id>}:summary``           string  the game list's summary of the game at     none
                                          a version (``<format>|<JSON>``), kept by
                                          its follow-up
``game:{<id>}:deadlines``         hash    seat -> ``action|step|ms`` (awaited turns) none
``game:{<id>}:presence``          hash    ``r<seat>`` last request ms, ``l<seat>``  35 days
                                          last feed closed ms, ``f<seat>:<p>``
                                          feed lease of process ``p`` (renewed
                                          ms), ``a<seat>`` substituted since ms
                                          (service/play/presence.py)
``game:{<id>}:botseal:<s>:<step>``string  a bot's sealed move and salt (JSON)        none
``game:{<id>}:snapshot``          hash    the match folded at a version: ``format``, none
                                          ``version``, ``tip``, ``state`` (derived
                                          data, service/play/snapshots.py)
``game:{<id>}:archive``           string  the whole game once archived (replaces     setting
                                          every key above: service/store/archive.py)
``games:active:{a<b>}``           zset    games not yet retired, all score 0 (the    none
                                          sweep pages them by id), bucket ``b``
``games:activity:{y<b>}``         zset    game id -> last change (ms): abandonment   none
``lobby:public:{p<b>}``           zset    ``<game>|<id>`` -> created ms              none
``games:archive-due:{r<b>}``      zset    ended games not archived yet -> when       none
                                          their archive is due (ms): the sweep's
                                          look for ones whose job never ran
``games:remains:{m<b>}``          zset    archived games' leftovers (JSON: game,     none
                                          owner, players) -> when to prune them (ms):
                                          a day after the archive is gone
``owner:{<key>}:games``           zset    the API key's games -> created ms          pruned
``owner:{<key>}:active``          zset    its games counted by the quota -> ms       none
``owner:{<key>}:pending``         zset    creations under way (quota) -> ms          none
``owner:{<key>}:stats``           hash    its finished games' counts                 none
``owner:{<key>}:stats-counted``   set     game ids already counted                   pruned
``owner:{<key>}:webhooks``        zset    its webhook ids -> created ms              none
``owner:{<key>}:ratings:<game>``  hash    identity (``p:<external id>``, ``b:<bot     none
                                          level>``) -> its rating (JSON)
``owner:{<key>}:board:<game>``    zset    identity -> its shown rating (exact)       none
``owner:{<key>}:rated``           set     game ids whose ratings were updated        pruned
``owner:{<key>}:player:<x>:games``zset    the games with a seat of external id x     pruned
                                          -> created ms
``owner:{<key>}:mm:ticket:<id>``  hash    a matchmaking ticket (its secret's hash)   expiry
                                                                                     + 1 day
``owner:{<key>}:mm:pool``         zset    its waiting tickets -> created ms          none
``owner:{<key>}:mm:player:<x>``   zset    external id x's tickets (the waiting ones  its longest
                                          and some that ended) -> expires ms         ticket's
``owner:{<key>}:mm:making``       zset    game ids of matches made whose game is     none
                                          not created yet -> ms
``owner:{<key>}:mm:match:<game>`` string  such a match: its tickets and seats (JSON) 1 day
``owner:{<key>}:feed``            stream  its account feed (about 10,000 entries)    none
``owner:{<key>}:feed:active``     string  ``1`` while the key uses its feed          7 days
``owner:{<key>}:feed:seen:<id>``  string  a notification id already fed (built in    1 day
                                          the feed's script from the prefix)
``webhook:{<id>}``                string  the webhook (JSON, with its secret)        none
``webhook:{<id>}:attempts``       list    its delivery attempts, newest first (500)  none
``invite:<sha256(code)>``         string  ``<game id>|<seat>`` of an open seat       archive
``ticket:<sha256(ticket)>``       string  what a stream ticket opens (JSON)          60 s
``matchmaking:ticket:<id>``       string  the API key id of a matchmaking ticket     as the
                                                                                     ticket
``matchmaking:owners``            zset    API keys with tickets -> last ticket ms    none
``matchmaking:lease``             string  the matcher that runs now                  lease
``stakeout:live:wake:<p>:<n>``    stream  wakes a live reader of process ``p``       1 hour
``outbox:{<shard>}``              stream  the changes to follow up (one entry an     trimmed
                                          append: game, versions, time, seat); its
                                          consumer group ``follow-ups``
``outbox:{<shard>}:owner``        string  the dispatcher that holds the shard        lease
``outbox:{<shard>}:parked``       stream  entries whose follow-up kept failing, with none
                                          their error (an operator's)
================================  ======  =========================================  =======

The outbox's shards have fixed hash tags (`OUTBOX_SHARDS`), chosen at evenly spaced hash
slots so that a Redis Cluster's masters each hold some (service/store/outbox.py).

The queue's Redis (``STAKEOUT_QUEUE_REDIS_URL``, else the same; RQ's own ``rq:*`` keys are
RQ's):

=====================================  ======  ====================================  ========
key                                    type    holds                                 TTL
=====================================  ======  ====================================  ========
``stakeout:ratelimit:<identity>``      hash    a caller's token bucket               refill
``stakeout:metrics:job_seconds``       hash    job duration histogram                none
``stakeout:metrics:worker_acts``       hash    ``<game>|<act>`` -> acts by workers   none
``stakeout:worker-alive:<host>-<pid>`` string  a worker process's heartbeat          5 s
``stakeout:worker-reaped:<job>:<w>``   string  an abandoned job already requeued     1 hour
``stakeout:worker-stranded:<job>``     string  when a queued job was first seen      1 hour
                                               stranded
``stakeout:deliverer-alive:<host>``    string  a webhook worker on the host runs     10 s
``stakeout:deliveries``                stream  webhook deliveries to make (webhook,  settled
                                               notification, attempt); its consumer  entries
                                               group ``deliverers``                  deleted
``stakeout:deliveries:due``            zset    deliveries to retry -> when (ms)      none
``stakeout:deliveries:queued:<game>``  hash    ``<webhook>|<notification id>`` of    1 hour
                                               the game's deliveries queued
=====================================  ======  ====================================  ========

Every ``game:{<id>}:*`` key but the archive is deleted when the game is archived
(``STAKEOUT_ARCHIVE_AFTER_SECONDS`` after it ended), so "none" above means "until then".
"archive": deleted when the game is archived (its invites, listed in its meta). "pruned":
a game's entry is removed by the sweep ``STAKEOUT_REMAINS_GRACE_SECONDS`` after its archive
is gone (``games:remains``, service/store/remains.py).

The indexes of games (active, activity, lobby, archive due) are split into `INDEX_BUCKETS`
sorted sets, each with a hash tag of its own, so Redis Cluster spreads them over its masters
and no single key is touched by every create or act; a game's bucket is `bucket_of` its id. The
single sets of before (``games:active``, ``games:activity``, ``lobby:public``: `LEGACY_*`)
are moved into the buckets by the sweep (`service/store/buckets.py`).

``game:{<id>}:idem`` expires `STAKEOUT_IDEMPOTENCY_SECONDS` after the last act that
recorded a key in it (the append script renews it).

The fields of ``game:{<id>}:idem`` are namespaced by who acts, so two callers' keys never
collide: ``s<seat>:<key>`` (a seat's Idempotency-Key), ``owner:<key>`` (the creator's),
``bot:<seat>:<action>:<version>`` (a bot's turn), ``timeout:<seat>:<deadline ms>`` (a turn
deadline's job), ``away:<seat>:<version>`` (an away seat's turn), ``abandon`` (the
abandonment sweep).
"""

from __future__ import annotations

import zlib

# ---- a game's keys: hash tag {<game id>} ------------------------------------------------


def game_keys(game_id: str) -> tuple[str, str, str, str]:
    """The event store's keys of a game: events, idem, meta, seed (one call per act)."""
    tag = "{" + game_id + "}"
    return (f"game:{tag}:events", f"game:{tag}:idem", f"game:{tag}:meta", f"game:{tag}:seed")


def events_key(game_id: str) -> str:
    return "game:{" + game_id + "}:events"


def meta_key(game_id: str) -> str:
    return "game:{" + game_id + "}:meta"


def game_of_events_key(key: bytes) -> str:
    """The game id of an ``events_key`` (as a stream read names it)."""
    return key.decode().split("{", 1)[1].split("}", 1)[0]


def seat_tokens_key(game_id: str) -> str:
    return "game:{" + game_id + "}:seat_tokens"


def summary_key(game_id: str) -> str:
    return "game:{" + game_id + "}:summary"


def deadlines_key(game_id: str) -> str:
    return "game:{" + game_id + "}:deadlines"


def presence_key(game_id: str) -> str:
    return "game:{" + game_id + "}:presence"


def bot_seal_key(game_id: str, seat: int, step: str) -> str:
    return "game:{" + game_id + f"}}:botseal:{seat}:{step}"


def snapshot_key(game_id: str) -> str:
    return "game:{" + game_id + "}:snapshot"


def archive_key(game_id: str) -> str:
    return "game:{" + game_id + "}:archive"


# Every archive (a SCAN's MATCH; braces are not special in Redis' patterns).
ARCHIVE_PATTERN = "game:{*}:archive"


def game_of_key(key: bytes | str) -> str:
    """The game id of any of a game's keys."""
    text = key.decode() if isinstance(key, bytes) else key
    return text.split("{", 1)[1].split("}", 1)[0]


# ---- the fields of game:{<id>}:idem -----------------------------------------------------


def seat_idempotency(seat: int, key: str) -> str:
    return f"s{seat}:{key}"


def owner_idempotency(key: str) -> str:
    return f"owner:{key}"


def caller_of_idempotency(field: str) -> str | None:
    """Whose Idempotency-Key a field of ``game:{<id>}:idem`` holds: ``s<seat>`` or
    ``owner``; None for the service's own (a bot's turn, a deadline, scoring, abandonment)."""
    head, _, _ = field.partition(":")
    if head == "owner" or (head[:1] == "s" and head[1:].isdigit()):
        return head
    return None


def bot_idempotency(seat: int, action: str, version: int) -> str:
    return f"bot:{seat}:{action}:{version}"


def timeout_idempotency(seat: int, at_ms: int) -> str:
    return f"timeout:{seat}:{at_ms}"


def away_idempotency(seat: int, version: int) -> str:
    return f"away:{seat}:{version}"


ABANDON_IDEMPOTENCY = "abandon"
RESULT_IDEMPOTENCY = "result"

# ---- sets of games, in buckets with a hash tag each --------------------------------------

# Fixed: a game's bucket is part of where its index entries are stored.
INDEX_BUCKETS = 16


def bucket_of(game_id: str) -> int:
    return zlib.crc32(game_id.encode()) % INDEX_BUCKETS


def active_games_key(bucket: int) -> str:
    return "games:active:{a" + str(bucket) + "}"


def game_activity_key(bucket: int) -> str:
    return "games:activity:{y" + str(bucket) + "}"


def public_lobby_key(bucket: int) -> str:
    return "lobby:public:{p" + str(bucket) + "}"


def archive_due_key(bucket: int) -> str:
    return "games:archive-due:{r" + str(bucket) + "}"


def remains_key(bucket: int) -> str:
    return "games:remains:{m" + str(bucket) + "}"


# The single sets of before the buckets (moved into them by the sweep).
LEGACY_ACTIVE_GAMES = "games:active"
LEGACY_GAME_ACTIVITY = "games:activity"
LEGACY_PUBLIC_LOBBY = "lobby:public"

# ---- an API key's keys: hash tag {<API key id>} -----------------------------------------


def _owner(owner: str, rest: str) -> str:
    """An API key's key: ``owner:{<owner>}:<rest>`` (one hash tag for all of them)."""
    return "owner:{" + owner + "}:" + rest


def owner_games_key(owner: str) -> str:
    return _owner(owner, "games")


def quota_keys(owner: str) -> tuple[str, str]:
    """The quota's sets: the key's active games, and its creations under way."""
    return _owner(owner, "active"), _owner(owner, "pending")


def stats_key(owner: str) -> str:
    return _owner(owner, "stats")


def stats_counted_key(owner: str) -> str:
    return _owner(owner, "stats-counted")


def owner_webhooks_key(owner: str) -> str:
    return _owner(owner, "webhooks")


def feed_key(owner: str) -> str:
    return _owner(owner, "feed")


def feed_active_key(owner: str) -> str:
    return _owner(owner, "feed:active")


def feed_seen_prefix(owner: str) -> str:
    """The feed's script appends a notification id to this (same hash tag as the feed)."""
    return _owner(owner, "feed:seen:")


def ratings_key(owner: str, game: str) -> str:
    return _owner(owner, "ratings:" + game)


def board_key(owner: str, game: str) -> str:
    return _owner(owner, "board:" + game)


def rated_key(owner: str) -> str:
    return _owner(owner, "rated")


def player_games_key(owner: str, external_id: str) -> str:
    return _owner(owner, f"player:{external_id}:games")


def mm_ticket_key(owner: str, ticket_id: str) -> str:
    return _owner(owner, "mm:ticket:" + ticket_id)


def mm_pool_key(owner: str) -> str:
    return _owner(owner, "mm:pool")


def mm_player_key(owner: str, external_id: str) -> str:
    return _owner(owner, f"mm:player:{external_id}")


def mm_making_key(owner: str) -> str:
    return _owner(owner, "mm:making")


def mm_match_key(owner: str, game_id: str) -> str:
    return _owner(owner, "mm:match:" + game_id)


# ---- matchmaking's own keys (single keys, no tag) -------------------------------------


def mm_ticket_owner_key(ticket_id: str) -> str:
    return "matchmaking:ticket:" + ticket_id


MM_OWNERS = "matchmaking:owners"
MM_LEASE = "matchmaking:lease"

# ---- a webhook's keys: hash tag {<webhook id>} ------------------------------------------


def webhook_key(webhook_id: str) -> str:
    return "webhook:{" + webhook_id + "}"


def webhook_attempts_key(webhook_id: str) -> str:
    return "webhook:{" + webhook_id + "}:attempts"


# ---- one-off secrets, by hash -----------------------------------------------------------


def invite_key(code_hash: str) -> str:
    return "invite:" + code_hash


def ticket_key(ticket_hash: str) -> str:
    return "ticket:" + ticket_hash


# ---- the outbox: a fixed set of shards, each a stream with its own hash tag -----------

# The tags, at slots 48, 1081, ..., 15396 (one in each sixteenth of the slot space; see
# tests/test_redis_keys.py). Stored data: never change or reorder them.
OUTBOX_SHARDS = (
    "o0.58",
    "o1.44",
    "o2.302",
    "o3.102",
    "o4.403",
    "o5.27",
    "o6.376",
    "o7.176",
    "o8.272",
    "o9.433",
    "o10.265",
    "o11.238",
    "o12.11",
    "o13.350",
    "o14.211",
    "o15.450",
)
OUTBOX_GROUP = "follow-ups"


def outbox_key(shard: str) -> str:
    return "outbox:{" + shard + "}"


def outbox_owner_key(shard: str) -> str:
    return "outbox:{" + shard + "}:owner"


def outbox_parked_key(shard: str) -> str:
    return "outbox:{" + shard + "}:parked"


# ---- per process ------------------------------------------------------------------------


def live_wake_key(process_token: str, reader: int) -> str:
    return f"stakeout:live:wake:{process_token}:{reader}"


# ---- the queue's Redis ------------------------------------------------------------------

RATE_LIMIT_PREFIX = "stakeout:ratelimit:"
JOB_SECONDS = "stakeout:metrics:job_seconds"
WORKER_ACTS = "stakeout:metrics:worker_acts"


def worker_alive_key(process: str) -> str:
    return "stakeout:worker-alive:" + process


def worker_reaped_key(job_id: str, worker: str) -> str:
    return f"stakeout:worker-reaped:{job_id}:{worker}"


def worker_stranded_key(job_id: str) -> str:
    return "stakeout:worker-stranded:" + job_id


def deliverer_alive_key(host: str) -> str:
    return "stakeout:deliverer-alive:" + host


# The webhook deliveries (service/notify/delivery_queue.py).
DELIVERIES = "stakeout:deliveries"
DELIVERY_GROUP = "deliverers"
DELIVERIES_DUE = "stakeout:deliveries:due"


def deliveries_queued_key(game_id: str) -> str:
    return "stakeout:deliveries:queued:" + game_id
