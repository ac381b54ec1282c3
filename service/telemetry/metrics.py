"""Metrics (Prometheus): what this process records itself, and what the workers record
in the queue Redis for the API to export.

Design, and why:

- Counters and histograms that the API process can see itself (HTTP requests, moves applied,
  append conflicts, idempotent replays) are ordinary `prometheus_client` metrics in the
  process's default registry. Each API process exposes its own; Prometheus scrapes every
  pod and sums them.
- RQ runs each job in a forked "work horse" that exits when the job is done, so a metric
  recorded in a worker's memory would be lost, and a worker metrics port would need
  prometheus-client's multiprocess mode. Instead a job pushes its duration into a Redis
  hash on the queue Redis (one bucket counter and the sum, in one MULTI), and the API reads
  that hash at scrape time and exports it as a histogram, next to the queue depths (RQ
  ``Queue.count``). Those series are cluster-wide: every API pod exports the same values,
  so query them with ``max`` (not ``sum``) across pods.
- Request ids, access lines and the HTTP metrics are recorded by one ASGI wrapper around
  the whole app: `service.http.observability`, which also serves ``/metrics``.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import redis
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram
from prometheus_client.metrics_core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.multiprocess import MultiProcessCollector
from rq import Queue, get_current_job

from service.store.keys import (
    DELIVERIES,
    DELIVERIES_DUE,
    JOB_SECONDS,
    OUTBOX_GROUP,
    OUTBOX_SHARDS,
    WORKER_ACTS,
    outbox_key,
)
from service.telemetry.logs import LogFields, log_fields

log = logging.getLogger("stakeout.observability")


# ---- metrics this process records itself ---------------------------------------------

HTTP_REQUESTS = Counter(
    "stakeout_http_requests",
    "HTTP requests by method, route template and status",
    ["method", "route", "status"],
)
HTTP_LATENCY = Histogram(
    "stakeout_http_request_duration_seconds",
    "HTTP request latency by method and route template (an SSE stream: its whole life)",
    ["method", "route"],
)
MOVES_APPLIED = Counter(
    "stakeout_moves_applied",
    "Acts appended by this process's GameService, by game and act kind",
    ["game", "act"],
)
APPEND_CONFLICTS = Counter(
    "stakeout_append_conflicts",
    "Appends that lost a race for the stream version (then retried or answered 412)",
    ["game"],
)
IDEMPOTENT_REPLAYS = Counter(
    "stakeout_idempotent_replays",
    "Requests answered from a stored Idempotency-Key instead of appending again",
    ["game"],
)
STORE_REGRESSIONS = Counter(
    "stakeout_store_regressions",
    "Times this process found the event store behind its warm cache (a restore, a failover"
    " to a lagging replica); each time the cache is dropped and reloaded",
)
FOLLOW_UP_FAILURES = Counter(
    "stakeout_follow_up_failures",
    "Follow-up work after an act (jobs, deadlines, webhooks) that failed and will be retried",
)
OUTBOX_FOLLOWED = Counter(
    "stakeout_outbox_followed_total",
    "Outbox entries followed up by this process's dispatcher",
)
OUTBOX_PARKED = Counter(
    "stakeout_outbox_parked_total",
    "Outbox entries this process's dispatcher set aside after their follow-up kept failing",
)


def act_kind(act: object) -> str:
    """The act's stable tag (``move``, ``commit``, ``reveal``, ``result``): a bounded label."""
    config = getattr(type(act), "__struct_config__", None)
    tag = getattr(config, "tag", None)
    return str(tag) if tag is not None else type(act).__name__


_ACT_COUNTERS: dict[tuple[str, type], Any] = {}


def count_act(game: str, act: object) -> None:
    """One act appended: ``MOVES_APPLIED`` by game and act kind (the child cached: an act
    is on the hot path, and ``labels()`` takes a lock and builds a key each call)."""
    key = (game, type(act))
    counter = _ACT_COUNTERS.get(key)
    if counter is None:
        counter = _ACT_COUNTERS[key] = MOVES_APPLIED.labels(game, act_kind(act))
    counter.inc()


# ---- worker job durations, via the queue Redis -----------------------------------------

JOB_BUCKETS: tuple[float, ...] = (
    0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, float("inf"),
)  # fmt: skip


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _le(bound: float) -> str:
    return "+Inf" if math.isinf(bound) else str(bound)


def _acts_so_far() -> dict[tuple[str, str], float]:
    """This process's MOVES_APPLIED counts, by (game, act)."""
    return {
        (s.labels["game"], s.labels["act"]): s.value
        for metric in MOVES_APPLIED.collect()
        for s in metric.samples
        if s.name.endswith("_total")
    }


def record_job(
    connection: redis.Redis,
    job: str,
    seconds: float,
    acts: dict[tuple[str, str], float],
) -> None:
    """Add one observation to the Redis-held histogram of ``job`` (bucket counts not
    cumulative) and the acts the job appended to the cluster-wide act counts, in one MULTI."""
    le = next(b for b in JOB_BUCKETS if seconds <= b)
    pipe = connection.pipeline(transaction=True)
    pipe.hincrby(JOB_SECONDS, f"{job}|{_le(le)}", 1)
    pipe.hincrbyfloat(JOB_SECONDS, f"{job}|sum", seconds)
    for (game, act), count in acts.items():
        pipe.hincrby(WORKER_ACTS, f"{game}|{act}", int(count))
    pipe.execute()


@contextlib.contextmanager
def timed_job(job: str, game_id: str) -> Iterator[None]:
    """Time one RQ job: a JSON log line and an observation in the Redis-held histogram."""
    current = get_current_job()
    token = log_fields.set(
        LogFields(extra={"job": job, "job_id": current.id if current else None, "game_id": game_id})
    )
    start = time.perf_counter()
    acts_before = _acts_so_far()
    outcome = "error"
    try:
        yield
        outcome = "ok"
    finally:
        seconds = time.perf_counter() - start
        # The acts this job appended (workers have no port to scrape: Redis carries them).
        acts = {
            key: count - acts_before.get(key, 0.0)
            for key, count in _acts_so_far().items()
            if count > acts_before.get(key, 0.0)
        }
        if current is not None:
            try:
                record_job(current.connection, job, seconds, acts)
            except redis.RedisError:
                log.warning("could not record the job duration", exc_info=True)
        log.info(
            "job %s %s",
            job,
            outcome,
            extra={"duration_ms": round(seconds * 1000, 3), "outcome": outcome},
        )
        log_fields.reset(token)


class QueueCollector:
    """Read at scrape time: from the queue Redis, the RQ queue depths and the job histograms;
    from the event store's, the outbox's backlog per shard (service/store/outbox.py)."""

    def __init__(
        self,
        url: str,
        queues: Sequence[str],
        events_url: str | None = None,
        events_cluster: bool = False,
    ) -> None:
        self._url = url
        self._queues = tuple(queues)
        self._redis: redis.Redis | None = None
        self._events_url = events_url
        self._events_cluster = events_cluster
        self._events: redis.Redis | redis.RedisCluster | None = None

    def _connection(self) -> redis.Redis:
        if self._redis is None:
            # Short bounds: a frozen queue Redis must not hang the scrape (it answers without
            # these families instead, below).
            self._redis = redis.Redis.from_url(
                self._url, socket_timeout=2.0, socket_connect_timeout=1.0
            )
        return self._redis

    def _outbox(self) -> Iterator[Metric]:
        if self._events_url is None:
            return
        if self._events is None:
            bounds: dict[str, Any] = {"socket_timeout": 2.0, "socket_connect_timeout": 1.0}
            self._events = (
                redis.RedisCluster.from_url(self._events_url, **bounds)
                if self._events_cluster
                else redis.Redis.from_url(self._events_url, **bounds)
            )
        pipe = self._events.pipeline(transaction=False)
        for shard in OUTBOX_SHARDS:
            pipe.xlen(outbox_key(shard))
            pipe.xinfo_groups(outbox_key(shard))
        try:
            replies = pipe.execute(raise_on_error=False)
        except redis.RedisError:
            log.warning("event store unreachable during a metrics scrape", exc_info=True)
            return
        lag = GaugeMetricFamily(
            "stakeout_outbox_lag",
            "Changes in an outbox shard no dispatcher has taken yet",
            labels=["shard"],
        )
        pending = GaugeMetricFamily(
            "stakeout_outbox_pending",
            "Changes in an outbox shard taken by a dispatcher and not yet followed up",
            labels=["shard"],
        )
        for i, shard in enumerate(OUTBOX_SHARDS):
            length, groups = replies[2 * i], replies[2 * i + 1]
            waiting, taken = 0, 0
            if not isinstance(groups, Exception) and not isinstance(length, Exception):
                group = next((g for g in groups if _text(g["name"]) == OUTBOX_GROUP), None)
                waiting = int(length) if group is None else int(group.get("lag") or 0)
                taken = 0 if group is None else int(group["pending"])
            lag.add_metric([shard], waiting)
            pending.add_metric([shard], taken)
        yield lag
        yield pending

    def collect(self) -> Iterator[Metric]:
        try:
            connection = self._connection()
            depths = [(q, Queue(q, connection=connection).count) for q in self._queues]
            raw: dict[Any, Any] = connection.hgetall(JOB_SECONDS)
            acts: dict[Any, Any] = connection.hgetall(WORKER_ACTS)
            queued: Any = connection.xlen(DELIVERIES)
            due: Any = connection.zcard(DELIVERIES_DUE)
            deliveries = (int(queued), int(due))
        except redis.RedisError:
            # A scrape still answers with everything else: the process metrics matter most
            # precisely when the queue Redis is down.
            log.warning("queue Redis unreachable during a metrics scrape", exc_info=True)
            return
        depth = GaugeMetricFamily(
            "stakeout_queue_depth", "Jobs waiting in each RQ queue", labels=["queue"]
        )
        for name, count in depths:
            depth.add_metric([name], count)
        yield depth
        waiting = GaugeMetricFamily(
            "stakeout_webhook_deliveries",
            "Webhook deliveries in the delivery queue: queued (to be made or being made), "
            "due (retries waiting for their time)",
            labels=["state"],
        )
        waiting.add_metric(["queued"], deliveries[0])
        waiting.add_metric(["due"], deliveries[1])
        yield waiting
        yield _job_histogram({k.decode(): v.decode() for k, v in raw.items()})
        worker_acts = CounterMetricFamily(
            "stakeout_worker_acts",
            "Acts appended by the workers' jobs (bot turns, deadlines, scoring), cluster-wide",
            labels=["game", "act"],
        )
        for field_name, count in sorted(acts.items()):
            game, act = field_name.decode().split("|", 1)
            worker_acts.add_metric([game, act], int(count))
        yield worker_acts
        yield from self._outbox()

    def close(self) -> None:
        if self._redis is not None:
            self._redis.close()
            self._redis = None
        if self._events is not None:
            self._events.close()
            self._events = None


def _job_histogram(fields: dict[str, str]) -> HistogramMetricFamily:
    family = HistogramMetricFamily(
        "stakeout_worker_job_duration_seconds",
        "RQ job run time, recorded by the workers in Redis (cluster-wide: same on every pod)",
        labels=["job"],
    )
    jobs = sorted({name.split("|", 1)[0] for name in fields})
    for job in jobs:
        cumulative = 0
        buckets: list[tuple[str, float]] = []
        for le in JOB_BUCKETS:
            cumulative += int(fields.get(f"{job}|{_le(le)}", 0))
            buckets.append((_le(le), cumulative))
        family.add_metric([job], buckets, float(fields.get(f"{job}|sum", 0.0)))
    return family


class _Scrape:
    """This process's registry plus the Redis-read families, as one collector."""

    def __init__(self, *collectors: Any) -> None:
        self._collectors = collectors

    def collect(self) -> Iterable[Metric]:
        for collector in self._collectors:
            yield from collector.collect()


def process_registry() -> CollectorRegistry:
    """This process's metrics; in multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``, set by
    `stakeout run` for its API processes) those of every API process, summed."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return registry
    return REGISTRY


def exposition(collector: QueueCollector) -> Any:
    """What a scrape reads: the process (or processes) metrics and the Redis-read ones."""
    return _Scrape(process_registry(), collector)


__all__ = [
    "APPEND_CONFLICTS",
    "FOLLOW_UP_FAILURES",
    "HTTP_LATENCY",
    "HTTP_REQUESTS",
    "IDEMPOTENT_REPLAYS",
    "MOVES_APPLIED",
    "OUTBOX_FOLLOWED",
    "OUTBOX_PARKED",
    "STORE_REGRESSIONS",
    "QueueCollector",
    "act_kind",
    "count_act",
    "exposition",
    "timed_job",
]
