"""The ``stakeout`` command: serve, worker, run (everything at once), banner (a running
run's addresses and key again), verify, archive export and import, export-openapi."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from service.settings import Settings

if TYPE_CHECKING:  # imported where used: the embedded server's package only for `run`
    from types import FrameType

    from service.ops.embedded import EmbeddedRedis


# How long an API process may take to finish its requests in flight and its lifespan
# after SIGTERM (Kubernetes' grace period is 30 s: k8s/).
GRACEFUL_SECONDS = 20
# How often a worker of `stakeout run` checks that the run is still its parent.
ORPHAN_CHECK_SECONDS = 1.0


# A WebSocket frame longer than this many request bodies is closed (1009) unread; a shorter
# one past STAKEOUT_MAX_BODY_BYTES is refused with a problem (service/api/v1/play.py).
WS_FRAME_FACTOR = 4


def _uvicorn_options(settings: Settings) -> dict[str, Any]:
    """What every API process is served with, one process or several."""
    return {
        "host": settings.host,
        "port": settings.port,
        "log_level": settings.log_level.lower(),
        # JSON logs: uvicorn's loggers propagate to our root handler (log_config=None keeps
        # uvicorn from installing its own), and our access log replaces uvicorn's.
        "log_config": None,
        "access_log": False,
        "timeout_graceful_shutdown": GRACEFUL_SECONDS,
        "timeout_keep_alive": settings.keep_alive_seconds,
        # The client's address is decided by STAKEOUT_TRUSTED_PROXIES alone
        # (service/http/ratelimit.py); uvicorn would otherwise believe X-Forwarded-For from
        # any local peer.
        "proxy_headers": False,
        # No ``server: uvicorn`` on every answer: it tells a client nothing it needs, and
        # tells anyone probing which server to look up.
        "server_header": False,
        # httptools, with an answer's head and body sent in one write (service/http/protocol.py)
        "http": "service.http.protocol:OneWriteProtocol",
        # The play sockets (service/api/v1/play.py): websockets' Sans-I/O protocol; a frame
        # past a few request bodies' size is closed with 1009 before the app reads it.
        "ws": "websockets-sansio",
        "ws_max_size": settings.max_body_bytes * WS_FRAME_FACTOR,
    }


def _serve(settings: Settings) -> None:
    if settings.api_server == "granian":
        _granian(settings, 1).serve()
        return
    import uvicorn

    from service.app import create_app, for_serving

    # uvicorn shuts down gracefully on SIGTERM (in-flight requests finish), then raises the
    # signal again; this no-op handler receives that, so the process exits 0, not -15.
    signal.signal(signal.SIGTERM, lambda *_: None)
    uvicorn.run(for_serving(create_app(settings)), **_uvicorn_options(settings))


def _serve_processes(settings: Settings, processes: int) -> None:
    """The API in ``processes`` processes on one socket (the server restarts a dead one).

    Each process builds its app from the environment (``service.app:app_factory``)."""
    if settings.api_server == "granian":
        _granian(settings, processes).serve()
        return
    import uvicorn

    uvicorn.run(
        "service.app:app_factory",
        factory=True,
        workers=processes,
        **_uvicorn_options(settings),
    )


def _granian(settings: Settings, processes: int) -> Any:
    """granian serving the app in ``processes`` worker processes, each building it from the
    environment (``service.app:app_factory``; granian's main process only watches them): as
    `_uvicorn_options` has uvicorn, with HTTP/1.1 only.

    On SIGTERM or SIGINT the main process stops its workers: each stops accepting, finishes
    its requests in flight and runs the app's lifespan shutdown; one still running after
    `GRACEFUL_SECONDS` is killed. A worker that dies is started again. granian writes
    ``server: granian`` on every answer (it has no setting to leave it out)."""
    import multiprocessing

    from granian import Granian
    from granian.constants import HTTPModes, Interfaces, Loops
    from granian.log import LogLevels

    # Workers start as fresh interpreters, as uvicorn's do: `stakeout run` has threads of
    # its own (the supervisor, the metrics port) that a fork would copy mid-lock.
    multiprocessing.set_start_method("spawn", force=True)
    return Granian(
        "service.app:app_factory",
        factory=True,
        address=settings.host,
        port=settings.port,
        workers=processes,
        interface=Interfaces.ASGI,
        http=HTTPModes.http1,
        websockets=True,  # the play sockets (service/api/v1/play.py)
        loop=Loops.uvloop,
        log_level=LogLevels(settings.log_level.lower()),
        # granian's own lines go to the root logger (JSON lines: service/observability.py);
        # our access log replaces granian's. No X-Forwarded-For is read (granian reads none).
        log_dictconfig={"loggers": {"_granian": {"propagate": True}}},
        log_access=False,
        respawn_failed_workers=True,
        workers_kill_timeout=GRACEFUL_SECONDS,
    )


def _multiprocess_metrics(settings: Settings) -> Path:
    """prometheus_client's multiprocess mode: every API process writes its samples to files
    in a fresh directory, and a scrape of any of them (or of the metrics port) sums them."""
    directory = settings.data_dir / "metrics"
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(directory.resolve())
    return directory


def _run(settings: Settings) -> None:
    """Everything for a developer: embedded Redis (if no URL), workers, the API processes,
    all kept running by a supervisor."""
    from service.ops.embedded import socket_path
    from service.ops.run_guard import RunLock, check_port, stop_leftover_valkey
    from stakeout.supervisor import Supervisor

    # Refused in one sentence before anything starts (service/ops/run_guard.py).
    lock = RunLock(settings.data_dir)
    lock.claim()
    check_port(settings.host, settings.port)
    if settings.redis_url is None:
        leftover = stop_leftover_valkey(socket_path(settings.data_dir / "valkey"))
        if leftover is not None:
            print(
                f"Stopped the embedded Valkey (pid {leftover}) that a killed run left on "
                f"{settings.data_dir / 'valkey'}; its append-only file keeps every write.",
                flush=True,
            )
    # SIGTERM (a process manager, `kill`) stops everything as Ctrl+C does. One API process
    # is served in this one (uvicorn restores the handler it found, then raises the signal
    # again once it has shut down): this handler turns that into an exit through the
    # `finally` below, which stops the workers and the embedded Valkey.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        embedded, settings = _embedded_unless_configured(settings)
    except BaseException:
        lock.release()
        raise
    supervisor: Supervisor | None = None
    metrics_server = None
    metrics_dir: Path | None = None
    try:
        key_note = "from STAKEOUT_API_KEYS"
        if not settings.api_keys:
            key, key_note = _kept_api_key(settings.data_dir)
            settings = replace(settings, api_keys=(key,))
        # The API processes and the workers read their settings from the environment.
        os.environ["REDIS_URL"] = settings.redis_url or ""
        os.environ["STAKEOUT_API_KEYS"] = ",".join(settings.api_keys)
        metrics_dir = _multiprocess_metrics(settings)
        # Workers keep their own metrics in Redis (service/telemetry/metrics.py), not in files.
        worker_env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
        supervisor = Supervisor(worker_env, settings.run_workers, embedded)
        supervisor.start()
        if settings.metrics_port:
            from service.http.metrics_port import serve_metrics

            metrics_server = serve_metrics(settings, settings.metrics_port)
        print(_banner(settings, key_note, embedded), flush=True)
        lock.write_banner(_banner(settings, key_note, embedded, "running"))
        _serve_processes(settings, settings.processes)
    finally:
        if supervisor is not None:
            supervisor.stop()
        if metrics_server is not None:
            metrics_server.shutdown()
        if embedded is not None:
            embedded.stop()
        if metrics_dir is not None:
            shutil.rmtree(metrics_dir, ignore_errors=True)
        lock.release()


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


def _kept_api_key(data_dir: Path) -> tuple[str, str]:
    """The API key `stakeout run` made for this data folder (made now, the first time), and
    what the banner says of it: a restart keeps it, so the games made with it stay listed."""
    path = data_dir / "api-key"
    if path.exists():
        return path.read_text().strip(), f"kept in {path}"
    key = f"sk_{secrets.token_urlsafe(24)}"
    data_dir.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600)
    path.write_text(key + "\n")
    return key, f"made now and kept in {path}"


def _embedded_unless_configured(settings: Settings) -> tuple[EmbeddedRedis | None, Settings]:
    """The embedded Valkey, started, when no Redis URL is set (and the settings using it)."""

    from service.ops.embedded import EmbeddedRedis, ValkeyServerStartupError
    from service.ops.run_guard import RunRefused

    if settings.redis_url is not None:
        return None, settings
    # The processes of this machine reach it over its Unix socket (cheaper than TCP per
    # command); the TCP port stays open for redis-cli and the like.
    embedded = EmbeddedRedis(
        settings.data_dir / "valkey", appendfsync=settings.appendfsync, unix_socket=True
    )
    try:
        return embedded, replace(settings, redis_url=embedded.start())
    except ValkeyServerStartupError as exc:
        where = settings.data_dir / "valkey"
        raise RunRefused(
            f"The embedded Valkey did not start on {where} ({exc}): its log is in that folder."
        ) from None


def _banner(
    settings: Settings, key_note: str, embedded: EmbeddedRedis | None, state: str = "starting"
) -> str:
    """What `stakeout run` prints: where everything is, and the settings that change it
    (``state``: "starting" as it starts, "running" in the copy `stakeout banner` prints)."""
    base = f"http://{settings.host}:{settings.port}"
    metrics_at = (
        f"http://{settings.host}:{settings.metrics_port}/metrics"
        if settings.metrics_port
        else f"{base}/metrics"
    )
    cores = os.cpu_count() or 1
    processes_note = (
        f"{cores} cores, one left to the store, the workers and the clients; "
        if not settings.api_processes and cores > 1
        else ""
    )
    where = str(settings.data_dir / "valkey")
    redis_note = (
        f"  (embedded, also on {embedded.tcp_url}; AOF in {where}, restarted if it dies)"
        if embedded
        else ""
    )
    return (
        f"\nstakeout is {state} on {base}\n"
        f"  Web table:    {base}/web/  (paste the API key below in its lobby)\n"
        f"  API docs:     {base}/schema/  (contract: {base}/schema/openapi.json)\n"
        f"  API key:      {settings.api_keys[0]}  ({key_note})\n"
        f"  API processes: {settings.processes} under {settings.api_server}  ({processes_note}"
        "STAKEOUT_API_PROCESSES, STAKEOUT_API_SERVER change them)\n"
        f"  Workers:      {'; '.join(','.join(q) for q in settings.run_workers)}"
        f"  (STAKEOUT_RUN_WORKERS; restarted if they exit)\n"
        f"  Metrics:      {metrics_at}  (all API processes, summed)\n"
        f"  Redis:        {settings.redis_url}"
        f"{redis_note}\n"
    )


def _print_banner(settings: Settings) -> int:
    """`stakeout banner`: the banner of the run serving this data folder, again."""
    from service.ops.run_guard import running_banner

    text = running_banner(settings.data_dir)
    if text is None:
        print(
            f"No stakeout run is running with its data in {settings.data_dir} "
            "(`make run` starts one).",
            file=sys.stderr,
        )
        return 1
    print(text, end="")
    return 0


def _stop_when_orphaned() -> None:
    """A worker `stakeout run` started stops (a warm shutdown) once that run is gone, even
    killed with SIGKILL: it is then no one's, and a next run starts workers of its own."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(ORPHAN_CHECK_SECONDS)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="stakeout-orphan-watch", daemon=True).start()


def _verify(path: Path) -> int:
    import msgspec

    from domain.verify import ReplayDocument, VerificationError, verify

    try:
        replay = msgspec.json.decode(path.read_bytes(), type=ReplayDocument)
        verified = verify(replay)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError, VerificationError) as exc:
        print(f"NOT VERIFIED: {exc}", file=sys.stderr)
        return 1
    print(
        f"verified: {verified.game} game {verified.game_id}: seed matches its commitment, "
        f"{verified.events} events re-derived from {verified.acts} acts, "
        f"scores {verified.scores}, winners {verified.winners}"
    )
    return 0


def _export(path: Path | None) -> None:
    from service.app import create_app
    from service.http.openapi import finish

    app = create_app(Settings(redis_url="redis://unused"))
    doc = finish(app.openapi_schema.to_schema())
    text = json.dumps(doc, indent=2, sort_keys=True) + "\n"
    if path is None:
        sys.stdout.write(text)
    else:
        path.write_text(text)


def _queue_names(raw: str) -> tuple[str, ...]:
    names = tuple(q.strip() for q in raw.split(",") if q.strip())
    if not names:
        raise ValueError("no queue names")
    return names


def _parser() -> argparse.ArgumentParser:
    """The commands and their options."""
    parser = argparse.ArgumentParser(prog="stakeout")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("serve", help="run the HTTP API")
    worker = sub.add_parser(
        "worker", help="run a worker (bot turns, deadlines, scoring; webhooks; the matchmaker)"
    )
    worker.add_argument(
        "--queues", help="comma-separated queues to serve (default: STAKEOUT_WORKER_QUEUES)"
    )
    # `stakeout run`'s workers: they stop once the run that started them is gone.
    worker.add_argument("--with-parent", action="store_true", help=argparse.SUPPRESS)
    sub.add_parser("run", help="embedded Redis (when REDIS_URL is unset) + worker + API")
    sub.add_parser("banner", help="print the running `stakeout run`'s addresses and API key again")
    sub.add_parser("worker-health", help="exit 0 when a worker heartbeat is fresh")
    check = sub.add_parser("verify", help="verify a finished game's replay (JSON file)")
    check.add_argument("replay", type=Path)
    archive = sub.add_parser("archive", help="archived games to files and back (NDJSON, zstd)")
    files = archive.add_subparsers(dest="archive_command", required=True)
    out = files.add_parser("export", help="write archives to a .ndjson.zst file")
    out.add_argument("output", type=Path)
    out.add_argument(
        "--since-ms", type=int, default=0, help="only archives made at or after (epoch ms)"
    )
    out.add_argument("--delete", action="store_true", help="delete them from Redis once written")
    into = files.add_parser("import", help="bring archives back from a .ndjson.zst file")
    into.add_argument("input", type=Path)
    export = sub.add_parser("export-openapi", help="print (or write) the OpenAPI document")
    export.add_argument("--output", type=Path)
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env()
    except ValueError as exc:
        parser.error(str(exc))
    if args.command == "worker" and args.queues:
        try:
            settings = replace(settings, worker_queues=_queue_names(args.queues))
        except ValueError as exc:
            parser.error(f"--queues: {exc}")
    if args.command in {"serve", "worker", "run"}:
        from service.telemetry.logs import configure_logging

        configure_logging(settings.log_level, settings.log_format)
    if args.command == "serve":
        _serve(settings)
    elif args.command == "worker":
        from workers.main import run_worker

        if args.with_parent:
            _stop_when_orphaned()
        run_worker(settings)
    elif args.command == "worker-health":
        from workers.main import worker_healthy

        sys.exit(0 if worker_healthy(settings) else 1)
    elif args.command == "run":
        from service.ops.run_guard import RunRefused

        try:
            _run(settings)
        except RunRefused as exc:
            print(exc, file=sys.stderr, flush=True)
            sys.exit(1)
    elif args.command == "banner":
        sys.exit(_print_banner(settings))
    elif args.command == "verify":
        sys.exit(_verify(args.replay))
    elif args.command == "archive":
        from service.ops import archive_files

        if args.archive_command == "export":
            print(archive_files.run_export(settings, args.output, args.since_ms, args.delete))
        else:
            print(archive_files.run_import(settings, args.input))
    else:
        _export(args.output)


if __name__ == "__main__":
    main()
