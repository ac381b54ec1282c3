"""Sorted sets of games split into buckets (`service.store.keys.INDEX_BUCKETS`), each bucket
its own key with its own hash tag: on Redis Cluster the buckets spread over the masters,
and no single key is touched by every create or act.

A game's entry lives in the bucket of its id (`bucket_of`). What reads across games (the
sweep's pages, the lobby's newest first) reads every bucket, in one pipelined round trip.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from service.store.clients import AnyRedis
from service.store.keys import INDEX_BUCKETS, bucket_of

BucketKey = Callable[[int], str]


def by_bucket(game_ids: Sequence[str]) -> dict[int, list[int]]:
    """The positions of ``game_ids`` grouped by their bucket."""
    out: dict[int, list[int]] = defaultdict(list)
    for i, game_id in enumerate(game_ids):
        out[bucket_of(game_id)].append(i)
    return out


async def scores(
    redis: AnyRedis, key_of: BucketKey, game_ids: Sequence[str], members: Sequence[str] = ()
) -> list[float | None]:
    """The score of each game (its member: ``members[i]``, else its id) in its bucket, in
    one pipelined round trip."""
    names = list(members or game_ids)
    groups = by_bucket(game_ids)
    if not groups:
        return []
    pipe = redis.pipeline(transaction=False)
    for bucket, positions in groups.items():
        pipe.zmscore(key_of(bucket), [names[i] for i in positions])
    replies = await pipe.execute()
    out: list[float | None] = [None] * len(names)
    for (_, positions), found in zip(groups.items(), replies, strict=True):
        for i, score in zip(positions, found, strict=True):
            out[i] = score
    return out


async def newest(
    redis: AnyRedis, key_of: BucketKey, high: float | str, fetch: int
) -> tuple[list[tuple[Any, float]], bool]:
    """Members with score <= ``high`` from every bucket, newest first, as far as they are
    complete: a bucket that returned ``fetch`` rows may hold more below its last one, so
    rows below the highest such cut are left for the next read. Also whether every bucket
    was read to its end."""
    pipe = redis.pipeline(transaction=False)
    for bucket in range(INDEX_BUCKETS):
        pipe.zrevrangebyscore(key_of(bucket), high, "-inf", start=0, num=fetch, withscores=True)
    replies: list[Any] = await pipe.execute()
    floor: float | None = None
    for rows in replies:
        if len(rows) >= fetch:
            last = float(rows[-1][1])
            floor = last if floor is None else max(floor, last)
    merged = [
        (member, float(score))
        for rows in replies
        for member, score in rows
        if floor is None or float(score) >= floor
    ]
    merged.sort(key=lambda row: row[1], reverse=True)
    return merged, floor is None


async def drain_legacy(
    redis: AnyRedis, legacy: str, key_of: BucketKey, game_of: Callable[[str], str] = str
) -> int:
    """Move the members of the single set of before the buckets into their buckets (their
    scores kept; an entry already in its bucket keeps the higher score). Safe to repeat and
    to run twice at once: a member is removed from ``legacy`` only once it is in its
    bucket. How many were moved."""
    moved = 0
    while True:
        rows: Any = await redis.zrange(legacy, 0, 499, withscores=True)
        if not rows:
            return moved
        pipe = redis.pipeline(transaction=False)
        for member, score in rows:
            text = member.decode() if isinstance(member, bytes) else str(member)
            # GT: a new member is added; one already there keeps the higher score.
            pipe.zadd(key_of(bucket_of(game_of(text))), {text: score}, gt=True)
        await pipe.execute()
        await redis.zrem(legacy, *[member for member, _ in rows])
        moved += len(rows)
