"""The Redis key layout has one home, `service/store/keys.py`, and its strings never change."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from redis.crc import key_slot

from service.store import keys as k
from tests.helpers import service_sources

ROOT = Path(__file__).resolve().parent.parent
HOME = ROOT / "service" / "store" / "keys.py"
# The start of every key the service writes (a key's prefix up to its first colon), and
# the idempotency namespaces of game:{id}:idem.
KEY_START = re.compile(
    r"^(game|games|owner|webhook|stakeout|lobby|invite|ticket|bot|timeout|matchmaking):(?!\s)"
)


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes (prose may name keys)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _literals(source: str) -> list[tuple[int, str]]:
    """The string literals of a module (an f-string by its leading text), docstrings left out."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    parts_of_fstrings = {
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for part in node.values
    }
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            head = node.values[0] if node.values else None
            text = head.value if isinstance(head, ast.Constant) else ""
            out.append((node.lineno, str(text)))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in skip
            and id(node) not in parts_of_fstrings
        ):
            out.append((node.lineno, node.value))
    return out


def test_no_module_but_redis_keys_spells_a_key() -> None:
    sources = service_sources(ROOT)
    spelled = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for path in sources
        if path != HOME
        for line, text in _literals(path.read_text())
        if KEY_START.match(text)
    ]
    assert spelled == []


def test_the_check_finds_a_key_literal() -> None:
    source = 'KEY = "lobby:public"\n\n\ndef f(o: str) -> str:\n    return f"owner:{{{o}}}:x"\n'
    found = [text for _, text in _literals(source) if KEY_START.match(text)]
    assert found == ["lobby:public", "owner:{"]


def test_the_stored_layout_is_unchanged() -> None:
    """Data written before must still load: the exact strings, hash tags included."""
    gid, owner = "0123456789abcdef01234567", "key1"
    assert k.game_keys(gid) == (
        "game:{0123456789abcdef01234567}:events",
        "game:{0123456789abcdef01234567}:idem",
        "game:{0123456789abcdef01234567}:meta",
        "game:{0123456789abcdef01234567}:seed",
    )
    assert k.events_key(gid) == k.game_keys(gid)[0]
    assert k.meta_key(gid) == k.game_keys(gid)[2]
    assert k.game_of_events_key(k.events_key(gid).encode()) == gid
    assert k.seat_tokens_key(gid) == "game:{0123456789abcdef01234567}:seat_tokens"
    assert k.summary_key(gid) == "game:{0123456789abcdef01234567}:summary"
    assert k.deadlines_key(gid) == "game:{0123456789abcdef01234567}:deadlines"
    assert k.bot_seal_key(gid, 2, "s3") == "game:{0123456789abcdef01234567}:botseal:2:s3"
    assert (k.LEGACY_ACTIVE_GAMES, k.LEGACY_GAME_ACTIVITY, k.LEGACY_PUBLIC_LOBBY) == (
        "games:active",
        "games:activity",
        "lobby:public",
    )
    assert k.INDEX_BUCKETS == 16
    assert k.bucket_of(gid) == 12  # crc32 % 16: a game's bucket never moves
    assert k.active_games_key(3) == "games:active:{a3}"
    assert k.game_activity_key(3) == "games:activity:{y3}"
    assert k.public_lobby_key(3) == "lobby:public:{p3}"
    assert k.archive_due_key(3) == "games:archive-due:{r3}"
    assert k.remains_key(3) == "games:remains:{m3}"
    assert k.snapshot_key(gid) == "game:{0123456789abcdef01234567}:snapshot"
    assert k.archive_key(gid) == "game:{0123456789abcdef01234567}:archive"
    assert k.owner_games_key(owner) == "owner:{key1}:games"
    assert k.quota_keys(owner) == ("owner:{key1}:active", "owner:{key1}:pending")
    assert k.stats_key(owner) == "owner:{key1}:stats"
    assert k.stats_counted_key(owner) == "owner:{key1}:stats-counted"
    assert k.owner_webhooks_key(owner) == "owner:{key1}:webhooks"
    assert k.feed_key(owner) == "owner:{key1}:feed"
    assert k.feed_active_key(owner) == "owner:{key1}:feed:active"
    assert k.feed_seen_prefix(owner) == "owner:{key1}:feed:seen:"
    assert k.webhook_key("ab12") == "webhook:{ab12}"
    assert k.webhook_attempts_key("ab12") == "webhook:{ab12}:attempts"
    assert k.invite_key("h") == "invite:h"
    assert k.ticket_key("h") == "ticket:h"
    assert k.live_wake_key("tok", 3) == "stakeout:live:wake:tok:3"
    assert k.RATE_LIMIT_PREFIX == "stakeout:ratelimit:"
    assert (k.JOB_SECONDS, k.WORKER_ACTS) == (
        "stakeout:metrics:job_seconds",
        "stakeout:metrics:worker_acts",
    )
    assert k.worker_alive_key("h-1") == "stakeout:worker-alive:h-1"
    assert k.worker_reaped_key("j", "w") == "stakeout:worker-reaped:j:w"
    assert k.worker_stranded_key("j") == "stakeout:worker-stranded:j"
    assert k.deliverer_alive_key("h") == "stakeout:deliverer-alive:h"
    assert (k.DELIVERIES, k.DELIVERY_GROUP, k.DELIVERIES_DUE) == (
        "stakeout:deliveries",
        "deliverers",
        "stakeout:deliveries:due",
    )
    assert k.deliveries_queued_key("g") == "stakeout:deliveries:queued:g"
    assert k.seat_idempotency(1, "x") == "s1:x"
    assert k.owner_idempotency("x") == "owner:x"
    assert k.bot_idempotency(1, "move", 7) == "bot:1:move:7"
    assert k.timeout_idempotency(1, 99) == "timeout:1:99"
    assert k.ABANDON_IDEMPOTENCY == "abandon"
    assert k.ratings_key(owner, "fbi") == "owner:{key1}:ratings:fbi"
    assert k.board_key(owner, "fbi") == "owner:{key1}:board:fbi"
    assert k.rated_key(owner) == "owner:{key1}:rated"
    assert k.player_games_key(owner, "u1") == "owner:{key1}:player:u1:games"
    assert k.mm_ticket_key(owner, "t1") == "owner:{key1}:mm:ticket:t1"
    assert k.mm_pool_key(owner) == "owner:{key1}:mm:pool"
    assert k.mm_making_key(owner) == "owner:{key1}:mm:making"
    assert k.mm_match_key(owner, gid) == "owner:{key1}:mm:match:" + gid
    assert k.mm_ticket_owner_key("t1") == "matchmaking:ticket:t1"
    assert (k.MM_OWNERS, k.MM_LEASE) == ("matchmaking:owners", "matchmaking:lease")


def test_the_outbox_shards_sit_one_in_each_sixteenth_of_the_slot_space() -> None:
    """So a Redis Cluster's masters each hold shards (each owns a range of slots)."""
    slots = [key_slot(k.outbox_key(shard).encode()) for shard in k.OUTBOX_SHARDS]
    assert [slot * 16 // 16384 for slot in slots] == list(range(16))
    assert key_slot(k.outbox_owner_key("o3.102").encode()) == slots[3]
    assert k.outbox_key("o3.102") == "outbox:{o3.102}"
    assert k.OUTBOX_GROUP == "follow-ups"
