"""Settings, read from the environment once by the composition root."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


def _bool(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


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
    # Limits a client can rely on (documented in the README and the contract).
    max_body_bytes: int = 64 * 1024
    game_cache_size: int = 2048
    sweep_seconds: int = 30
    # Seconds between webhook delivery attempts (one retry per entry).
    webhook_backoff: tuple[int, ...] = (5, 30, 120, 600, 1800)
    webhook_timeout_seconds: float = 5.0
    log_level: str = "INFO"

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        e = dict(os.environ if env is None else env)
        keys = tuple(k.strip() for k in e.get("STAKEOUT_API_KEYS", "").split(",") if k.strip())
        return cls(
            host=e.get("HOST", "127.0.0.1"),
            port=int(e.get("PORT", "8000")),
            redis_url=e.get("REDIS_URL") or None,
            redis_cluster=_bool(e.get("REDIS_CLUSTER")),
            queue_redis_url=e.get("QUEUE_REDIS_URL") or None,
            api_keys=keys,
            data_dir=Path(e.get("STAKEOUT_DATA_DIR", ".data")),
            appendfsync=e.get("STAKEOUT_APPENDFSYNC", "everysec"),
            sweep_seconds=int(e.get("STAKEOUT_SWEEP_SECONDS", "30")),
            webhook_backoff=tuple(
                int(x) for x in e.get("STAKEOUT_WEBHOOK_BACKOFF", "5,30,120,600,1800").split(",")
            ),
            log_level=e.get("LOG_LEVEL", "INFO"),
        )
