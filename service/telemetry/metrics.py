"""Metrics (Prometheus), structured JSON logs and request ids, in one place.

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
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import msgspec
import redis
from litestar.types import Scope
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram
from prometheus_client.metrics_core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.multiprocess import MultiProcessCollector
from rq import Queue, get_current_job

from service.store.keys import JOB_SECONDS, WORKER_ACTS

log = logging.getLogger("stakeout.observability")
access_log = logging.getLogger("stakeout.access")


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
    """Read at scrape time from the queue Redis: RQ queue depths and the job histograms."""

    def __init__(self, url: str, queues: Sequence[str]) -> None:
        self._url = url
        self._queues = tuple(queues)
        self._redis: redis.Redis | None = None

    def _connection(self) -> redis.Redis:
        if self._redis is None:
            # Short bounds: a frozen queue Redis must not hang the scrape (it answers without
            # these families instead, below).
            self._redis = redis.Redis.from_url(
                self._url, socket_timeout=2.0, socket_connect_timeout=1.0
            )
        return self._redis

    def collect(self) -> Iterator[Metric]:
        try:
            connection = self._connection()
            depths = [(q, Queue(q, connection=connection).count) for q in self._queues]
            raw: dict[Any, Any] = connection.hgetall(JOB_SECONDS)
            acts: dict[Any, Any] = connection.hgetall(WORKER_ACTS)
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

    def close(self) -> None:
        if self._redis is not None:
            self._redis.close()
            self._redis = None


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


# ---- log context -----------------------------------------------------------------------


@dataclass(slots=True)
class LogFields:
    """What every log line of the current request (or job) carries."""

    request_id: str | None = None
    scope: Scope | None = None  # read lazily: routing fills in path_params (game_id) later
    extra: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"request_id": self.request_id, **(self.extra or {})}
        if self.scope is not None:
            game_id = game_id_of(self.scope)
            if game_id is not None:
                out["game_id"] = game_id
        return out


def game_id_of(scope: Scope) -> str | None:
    """The game a request is about, when its route names one (after routing)."""
    game_id: str | None = scope.get("path_params", {}).get("game_id")
    return game_id


# What the current request (or job) adds to every log line it writes.
log_fields: ContextVar[LogFields | None] = ContextVar("stakeout_log_fields", default=None)


# The last whole second seen, and its text.
_SECOND: list[tuple[int, str]] = [(-1, "")]
# ".000+00:00" to ".999+00:00": a line's milliseconds and zone by lookup, not formatting
# (the access line of every request takes its time from here).
_MILLISECONDS = tuple(f".{ms:03d}+00:00" for ms in range(1000))


def _iso(created: float) -> str:
    """``created`` as JsonFormatter's ``time`` (ISO 8601, milliseconds, UTC)."""
    second = int(created)
    last = _SECOND[0]
    if last[0] != second:
        text = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        last = _SECOND[0] = (second, text)
    return last[1] + _MILLISECONDS[int((created - second) * 1000)]


def now_iso() -> str:
    """Now, as a log line's ``time``."""
    return _iso(time.time())


# ---- JSON logs -------------------------------------------------------------------------

_ACCESS_FIELDS = ("method", "route", "status", "duration_ms", "outcome")


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, then the context fields."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": _iso(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = log_fields.get()
        if fields is not None:
            line.update(fields.as_dict())
        for name in _ACCESS_FIELDS:
            if name in record.__dict__:
                line[name] = record.__dict__[name]
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return _ENCODER.encode({k: v for k, v in line.items() if v is not None}).decode()


_ENCODER = msgspec.json.Encoder(enc_hook=str)
_JSON_HANDLER: list[logging.StreamHandler[Any]] = []  # the one `configure_logging` set up


def configure_logging(level: str = "INFO") -> None:
    """JSON lines on stderr for every logger (uvicorn's and RQ's propagate to the root)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)
    _JSON_HANDLER[:] = [handler]


def fast_handler() -> logging.StreamHandler[Any] | None:
    """The JSON log stream's handler, when `configure_logging` set one up: access lines
    are written to its stream directly (`service.http.observability`)."""
    return _JSON_HANDLER[0] if _JSON_HANDLER else None


__all__ = [
    "APPEND_CONFLICTS",
    "FOLLOW_UP_FAILURES",
    "HTTP_LATENCY",
    "HTTP_REQUESTS",
    "IDEMPOTENT_REPLAYS",
    "MOVES_APPLIED",
    "STORE_REGRESSIONS",
    "JsonFormatter",
    "LogFields",
    "QueueCollector",
    "act_kind",
    "configure_logging",
    "count_act",
    "exposition",
    "fast_handler",
    "game_id_of",
    "log_fields",
    "now_iso",
    "timed_job",
]
