"""Settings, read from the environment once by the composition root."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from ipaddress import IPv4Network, IPv6Network, ip_network
from pathlib import Path
from typing import Any

from domain.budget import Budget

Network = IPv4Network | IPv6Network

# A bot-turn job times out after 30 s (service.follow_ups.jobs.JOB_TIMEOUT_SECONDS); a bot's
# thinking time stays well inside it.
MAX_BOT_SECONDS = 20.0


def _bool(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def _converted(name: str, raw: str, convert: Callable[[str], object]) -> object:
    """``raw`` (the value of ``name``) converted; a bad value names the variable."""
    try:
        return convert(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not valid") from None


def parse_networks(raw: str) -> tuple[Network, ...]:
    """``STAKEOUT_TRUSTED_PROXIES``: comma-separated CIDRs (or single addresses)."""
    return tuple(ip_network(part.strip(), strict=False) for part in raw.split(",") if part.strip())


def _ints(raw: str) -> tuple[int, ...]:
    return tuple(int(x) for x in raw.split(","))


def _keys(raw: str) -> tuple[str, ...]:
    return tuple(k.strip() for k in raw.split(",") if k.strip())


def _or_none(raw: str) -> str | None:
    return raw or None


def _lower(raw: str) -> str:
    return raw.strip().lower()


def _names(raw: str) -> tuple[str, ...]:
    names = tuple(x.strip() for x in raw.split(",") if x.strip())
    if not names:
        raise ValueError("no queue names")
    return names


def _worker_sets(raw: str) -> tuple[tuple[str, ...], ...]:
    """``bots,scoring;webhooks``: one worker per ``;``-separated set of queues."""
    return tuple(_names(part) for part in raw.split(";") if part.strip())


# What a worker can serve, in the order it takes jobs: the RQ queues (service/follow_ups/
# jobs.py), then the webhook deliveries (a stream of their own, service/notify/delivery_queue.py)
# and the matchmaker (service/matchmaking/matcher.py).
ALL_QUEUES = ("bots", "scoring", "webhooks", "matchmaking")


API_SERVERS = ("granian", "uvicorn")
LOG_FORMATS = ("auto", "json", "text")


def default_api_processes(cores: int) -> int:
    """`stakeout run`'s API processes on a machine of ``cores``: one per core, less one
    for the embedded store, the workers and the clients of the same machine (measured
    with bench/move_path.py: docs/design-move-path.md, "Which server, how many
    processes")."""
    # Decided again for issue 40 (2026-12-03), on 2 cores, with whole `stakeout run`s side by
    # side (each its Valkey and workers, the load driver on the machine too) and 1, 2 and 3
    # processes interleaved round by round: two served 0.65-1.15 times one's acts (0.93 the
    # median of eight loops and loads; three, 0.88 and 0.95) and always spent 1.24-1.6 times
    # the API CPU an act, since the store, the workers and the driver need about as much CPU
    # again as the API and the second core is theirs. The 1.3-1.5 times compared two
    # runs apart, between which boardgame.io's own rate moved by a quarter.
    return max(1, cores - 1)


@dataclass(frozen=True)
class Settings:
    """Every knob of the service. ``from_env`` is the only place that reads os.environ."""

    host: str = "127.0.0.1"
    port: int = 8000
    # Event store. None: start an embedded Valkey server (AOF on) in ``data_dir``.
    redis_url: str | None = None
    redis_cluster: bool = False
    # RQ needs a plain (non-cluster) Redis; defaults to ``redis_url``.
    queue_redis_url: str | None = None
    api_keys: tuple[str, ...] = ()
    data_dir: Path = field(default_factory=lambda: Path(".data"))
    appendfsync: str = "everysec"
    # Limits a client can rely on (documented in docs/api-guide.md and the contract).
    max_body_bytes: int = 64 * 1024
    game_cache_size: int = 2048
    sweep_seconds: int = 30
    # A game nobody has acted in for this long is ended as abandoned by the sweep; 0: never.
    # Above the longest turn deadline (7 days), only games nobody can move are ended.
    abandon_seconds: int = 14 * 24 * 3600
    # Active (not yet ended) games an API key may have at once; 0: no limit.
    max_active_games: int = 200
    # Matchmaking tickets waiting at once: of one API key, and of one player of a key (a
    # player waits in a few queues at most); 0: no cap. Beyond: 409 `ticket-limit`,
    # `player-ticket-limit`. The key's cap also bounds what a matcher's pass reads of it.
    max_waiting_tickets: int = 1000
    max_player_tickets: int = 3
    # An ended game stays hot this long after its last change (rematches, last looks), then
    # it is archived into one compressed record (service/follow_ups/archiving.py).
    archive_after_seconds: int = 3600
    # How long an archive is kept in Redis; 0: forever (export them: `stakeout archive`).
    archive_ttl_seconds: int = 0
    # An archived game's entries in its API key's sets (its list, stats-counted, rated, its
    # players' games) are pruned by the sweep this long after its archive is gone
    # (service/store/remains.py): longer than any retry of a job of the game.
    remains_grace_seconds: int = 24 * 3600
    # The sweep removes an outbox consumer idle this long with nothing pending (the
    # dispatcher of a worker that is gone; a clean stop removes its own at once).
    consumer_idle_seconds: int = 600
    # A game's idempotency records expire this long after its last act that recorded one.
    idempotency_seconds: int = 24 * 3600
    # A snapshot of a game's match is kept every this many events (cold loads fold only the
    # events after it); 0: none.
    snapshot_every: int = 100
    # How long RQ keeps a finished job and its result; 0: deleted as it finishes (a job's
    # work is idempotent in the event store, so a duplicate enqueued later is harmless).
    job_result_ttl_seconds: int = 0
    # Seconds before each retry of a webhook delivery (one retry per entry).
    webhook_backoff: tuple[int, ...] = (5, 30, 120, 600, 1800)
    # One delivery attempt's overall deadline (connect, send, status and headers).
    webhook_timeout_seconds: float = 5.0
    # Deliveries reach public addresses only unless this is on (service/notify/egress.py).
    webhook_allow_private: bool = False
    # Delivery attempts one webhook worker has under way at once (half of them at most to
    # one receiver's origin).
    webhook_concurrency: int = 64
    # An expert bot's thinking per move: a wall-clock cap, and a multiplier on each game's
    # tuned sample count (domain/budget.py). The cap is what a deployment tunes.
    bot_seconds: float = 1.0
    bot_effort: float = 1.0
    # A token bucket per verified credential (else per client address): refilled at this
    # many requests a minute, holding at most ``rate_limit_burst``; 0: no limit.
    rate_limit_per_minute: int = 1200
    rate_limit_burst: int = 200
    # Proxies whose X-Forwarded-For names the client (the ingress); nobody else's is read.
    trusted_proxies: tuple[Network, ...] = ()
    log_level: str = "INFO"
    # How log lines look: "json" (one object a line), "text" (one readable line each, for
    # a person at a terminal) or "auto" (text when stderr is a terminal, else JSON).
    log_format: str = "auto"
    # Queues a `stakeout worker` serves, in priority order. Webhook deliveries get workers
    # of their own (`--queues webhooks`): a slow receiver never delays a bot. With
    # ``matchmaking`` the worker runs the matchmaker too (on a thread beside the bots).
    worker_queues: tuple[str, ...] = ("bots", "scoring", "matchmaking")
    # The workers `stakeout run` starts and keeps running: one per set of queues. The
    # matchmaker has a process of its own, so its passes never slow a bot turn
    # (bench/matchmaking.py --flood).
    run_workers: tuple[tuple[str, ...], ...] = (
        ("bots", "scoring"),
        ("webhooks",),
        ("matchmaking",),
    )
    # API processes `stakeout run` serves with; 0: `default_api_processes` (by the cores).
    api_processes: int = 0
    # The ASGI server of `stakeout serve` and `run`: "granian" or "uvicorn"
    # (docs/design-move-path.md, "Which server, how many processes").
    api_server: str = "uvicorn"
    # How long uvicorn keeps a connection open with no request on it. Longer than any
    # client's or proxy's own idle limit (httpx's and Node's 4-5 s, a load balancer's 60 s),
    # so the server is never the side that closes a connection a client is about to reuse:
    # at uvicorn's 5 s a request sent as the server closed was lost unanswered
    # ("Server disconnected without sending a response"). granian has no such setting.
    keep_alive_seconds: int = 75
    # /metrics on its own port (0: on the API port, next to the API).
    metrics_port: int = 0
    # The view and the acts answered by a layer around Litestar's router when it is sure
    # of the request (service/api/v1/hot_routes.py); off: every request is Litestar's.
    hot_routes: bool = True
    # A seat is online for this long after its token's last request (and while a live feed
    # of its own is open); 0: presence is off (every view's presence is null).
    presence_seconds: int = 30

    def __post_init__(self) -> None:
        if not 0 < self.bot_seconds <= MAX_BOT_SECONDS:
            raise ValueError(f"STAKEOUT_BOT_SECONDS must be in (0, {MAX_BOT_SECONDS:g}]")
        if not 0 < self.bot_effort <= 100:
            raise ValueError("STAKEOUT_BOT_EFFORT must be in (0, 100]")
        if self.rate_limit_per_minute < 0:
            raise ValueError("STAKEOUT_RATE_LIMIT_PER_MINUTE cannot be negative")
        if not 0 < self.webhook_timeout_seconds <= 25:
            raise ValueError("STAKEOUT_WEBHOOK_TIMEOUT_SECONDS must be in (0, 25]")
        if not 1 <= self.webhook_concurrency <= 1024:
            raise ValueError("STAKEOUT_WEBHOOK_CONCURRENCY must be in [1, 1024]")
        if self.abandon_seconds < 0:
            raise ValueError("STAKEOUT_ABANDON_SECONDS cannot be negative")
        for name, value in (
            ("STAKEOUT_MAX_ACTIVE_GAMES", self.max_active_games),
            ("STAKEOUT_MAX_WAITING_TICKETS", self.max_waiting_tickets),
            ("STAKEOUT_MAX_PLAYER_TICKETS", self.max_player_tickets),
        ):
            if value < 0:
                raise ValueError(f"{name} cannot be negative")
        for name, value in (
            ("STAKEOUT_ARCHIVE_AFTER_SECONDS", self.archive_after_seconds),
            ("STAKEOUT_ARCHIVE_TTL_SECONDS", self.archive_ttl_seconds),
            ("STAKEOUT_REMAINS_GRACE_SECONDS", self.remains_grace_seconds),
            ("STAKEOUT_CONSUMER_IDLE_SECONDS", self.consumer_idle_seconds),
            ("STAKEOUT_SNAPSHOT_EVERY", self.snapshot_every),
            ("STAKEOUT_JOB_RESULT_TTL_SECONDS", self.job_result_ttl_seconds),
        ):
            if value < 0:
                raise ValueError(f"{name} cannot be negative")
        if not 0 <= self.presence_seconds <= 3600:
            raise ValueError("STAKEOUT_PRESENCE_SECONDS must be in [0, 3600]")
        if self.idempotency_seconds < 1:
            raise ValueError("STAKEOUT_IDEMPOTENCY_SECONDS must be at least 1")
        if self.rate_limit_burst < 1:
            raise ValueError("STAKEOUT_RATE_LIMIT_BURST must be at least 1")
        for name, sets in (
            ("STAKEOUT_WORKER_QUEUES", (self.worker_queues,)),
            ("STAKEOUT_RUN_WORKERS", self.run_workers),
        ):
            unknown = sorted({q for queues in sets for q in queues} - set(ALL_QUEUES))
            if unknown or not sets:
                raise ValueError(f"{name}: unknown queues {unknown}; the queues: {ALL_QUEUES}")
        if not 0 <= self.api_processes <= 64:
            raise ValueError("STAKEOUT_API_PROCESSES must be in [0, 64]")
        if not 1 <= self.keep_alive_seconds <= 3600:
            raise ValueError("STAKEOUT_KEEP_ALIVE_SECONDS must be in [1, 3600]")
        if self.api_server not in API_SERVERS:
            raise ValueError(f"STAKEOUT_API_SERVER must be one of {', '.join(API_SERVERS)}")
        if self.log_format not in LOG_FORMATS:
            raise ValueError(f"STAKEOUT_LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}")
        if not 0 <= self.metrics_port <= 65535:
            raise ValueError("STAKEOUT_METRICS_PORT must be a port number")

    @property
    def processes(self) -> int:
        """API processes for `stakeout run`: the setting, else `default_api_processes`."""
        return self.api_processes or default_api_processes(os.cpu_count() or 1)

    @property
    def bot_budget(self) -> Budget:
        return Budget(seconds=self.bot_seconds, effort=self.bot_effort)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """The settings the environment gives (`ENVIRONMENT`); the defaults for the rest.
        A value that does not convert names its variable; `__post_init__` checks ranges."""
        e = os.environ if env is None else env
        given: dict[str, Any] = {}
        for name, (variables, convert) in ENVIRONMENT.items():
            variable = next((v for v in variables if v in e), None)
            if variable is not None:
                given[name] = _converted(variable, e[variable], convert)
        return cls(**given)


# Each setting the environment may give: the variables that give it (the first one set
# wins) and how its text converts. docs/settings.md lists every one (tests/test_docs.py).
ENVIRONMENT: dict[str, tuple[tuple[str, ...], Callable[[str], object]]] = {
    "host": (("HOST",), str),
    "port": (("PORT",), int),
    "redis_url": (("REDIS_URL",), _or_none),
    "redis_cluster": (("REDIS_CLUSTER",), _bool),
    "queue_redis_url": (("QUEUE_REDIS_URL",), _or_none),
    "api_keys": (("STAKEOUT_API_KEYS",), _keys),
    "data_dir": (("STAKEOUT_DATA_DIR",), Path),
    "appendfsync": (("STAKEOUT_APPENDFSYNC",), str),
    "sweep_seconds": (("STAKEOUT_SWEEP_SECONDS",), int),
    "abandon_seconds": (("STAKEOUT_ABANDON_SECONDS",), int),
    "max_active_games": (("STAKEOUT_MAX_ACTIVE_GAMES",), int),
    "max_waiting_tickets": (("STAKEOUT_MAX_WAITING_TICKETS",), int),
    "max_player_tickets": (("STAKEOUT_MAX_PLAYER_TICKETS",), int),
    "archive_after_seconds": (("STAKEOUT_ARCHIVE_AFTER_SECONDS",), int),
    "archive_ttl_seconds": (("STAKEOUT_ARCHIVE_TTL_SECONDS",), int),
    "remains_grace_seconds": (("STAKEOUT_REMAINS_GRACE_SECONDS",), int),
    "consumer_idle_seconds": (("STAKEOUT_CONSUMER_IDLE_SECONDS",), int),
    "idempotency_seconds": (("STAKEOUT_IDEMPOTENCY_SECONDS",), int),
    "snapshot_every": (("STAKEOUT_SNAPSHOT_EVERY",), int),
    "job_result_ttl_seconds": (("STAKEOUT_JOB_RESULT_TTL_SECONDS",), int),
    "webhook_backoff": (("STAKEOUT_WEBHOOK_BACKOFF",), _ints),
    "webhook_allow_private": (("STAKEOUT_WEBHOOK_ALLOW_PRIVATE",), _bool),
    "webhook_concurrency": (("STAKEOUT_WEBHOOK_CONCURRENCY",), int),
    "webhook_timeout_seconds": (("STAKEOUT_WEBHOOK_TIMEOUT_SECONDS",), float),
    "bot_seconds": (("STAKEOUT_BOT_SECONDS",), float),
    "bot_effort": (("STAKEOUT_BOT_EFFORT",), float),
    "rate_limit_per_minute": (("STAKEOUT_RATE_LIMIT_PER_MINUTE",), int),
    "rate_limit_burst": (("STAKEOUT_RATE_LIMIT_BURST",), int),
    "trusted_proxies": (("STAKEOUT_TRUSTED_PROXIES",), parse_networks),
    "log_level": (("LOG_LEVEL",), str),
    "log_format": (("STAKEOUT_LOG_FORMAT",), _lower),
    "worker_queues": (("STAKEOUT_WORKER_QUEUES",), _names),
    "run_workers": (("STAKEOUT_RUN_WORKERS",), _worker_sets),
    # WEB_CONCURRENCY: what process managers (and PaaS) set for the number of workers.
    "api_processes": (("STAKEOUT_API_PROCESSES", "WEB_CONCURRENCY"), int),
    "metrics_port": (("STAKEOUT_METRICS_PORT",), int),
    "api_server": (("STAKEOUT_API_SERVER",), _lower),
    "keep_alive_seconds": (("STAKEOUT_KEEP_ALIVE_SECONDS",), int),
    "hot_routes": (("STAKEOUT_HOT_ROUTES",), _bool),
    "presence_seconds": (("STAKEOUT_PRESENCE_SECONDS",), int),
}
