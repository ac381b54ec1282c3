"""The ``stakeout`` command: serve, worker, run (everything at once), export-openapi."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from service.settings import Settings


def _serve(settings: Settings) -> None:
    import uvicorn

    from service.app import create_app

    # uvicorn shuts down gracefully on SIGTERM (in-flight requests finish), then raises the
    # signal again; this no-op handler receives that, so the process exits 0, not -15.
    signal.signal(signal.SIGTERM, lambda *_: None)
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level.lower(),
        # JSON logs: uvicorn's loggers propagate to our root handler (log_config=None keeps
        # uvicorn from installing its own), and our access log replaces uvicorn's.
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=20,
        # The client's address is decided by STAKEOUT_TRUSTED_PROXIES alone
        # (service/ratelimit.py); uvicorn would otherwise believe X-Forwarded-For from
        # any local peer.
        proxy_headers=False,
    )


def _run(settings: Settings) -> None:
    """Everything for a developer: embedded Redis (if no URL), a worker, the server."""
    from service.embedded import EmbeddedRedis

    embedded: EmbeddedRedis | None = None
    if settings.redis_url is None:
        embedded = EmbeddedRedis(settings.data_dir / "valkey", appendfsync=settings.appendfsync)
        settings = replace(settings, redis_url=embedded.start())
    key_note = "from STAKEOUT_API_KEYS"
    if not settings.api_keys:
        settings = replace(settings, api_keys=(f"sk_{secrets.token_urlsafe(24)}",))
        key_note = "generated for this run"
    env = {
        **os.environ,
        "REDIS_URL": settings.redis_url or "",
        "STAKEOUT_API_KEYS": ",".join(settings.api_keys),
    }
    worker = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env)
    # Webhook deliveries have a worker of their own: a slow receiver never delays a bot.
    deliveries = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "worker", "--queues", "webhooks"], env=env
    )
    base = f"http://{settings.host}:{settings.port}"
    print(
        f"\nstakeout is starting on {base}\n"
        f"  API docs:     {base}/schema/  (contract: {base}/schema/openapi.json)\n"
        f"  API key:      {settings.api_keys[0]}  ({key_note})\n"
        f"  Redis:        {settings.redis_url}"
        f"{'  (embedded, AOF in ' + str(settings.data_dir / 'valkey') + ')' if embedded else ''}\n",
        flush=True,
    )
    try:
        _serve(settings)
    finally:
        for child in (worker, deliveries):
            child.send_signal(signal.SIGTERM)
        for child in (worker, deliveries):
            try:
                child.wait(timeout=20)
            except subprocess.TimeoutExpired:
                child.kill()
        if embedded is not None:
            embedded.stop()


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
    from service.openapi_doc import finish

    app = create_app(Settings(redis_url="redis://unused"))
    doc = finish(app.openapi_schema.to_schema())
    text = json.dumps(doc, indent=2, sort_keys=True) + "\n"
    if path is None:
        sys.stdout.write(text)
    else:
        path.write_text(text)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="stakeout")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("serve", help="run the HTTP API")
    work = sub.add_parser("worker", help="run an RQ worker (bot turns, deadlines, scoring)")
    work.add_argument(
        "--queues",
        default="bots,scoring",
        help="comma-separated queues; 'webhooks' for a webhook delivery worker",
    )
    sub.add_parser("run", help="embedded Redis (when REDIS_URL is unset) + worker + API")
    sub.add_parser("worker-health", help="exit 0 when a worker heartbeat is fresh")
    check = sub.add_parser("verify", help="verify a finished game's replay (JSON file)")
    check.add_argument("replay", type=Path)
    export = sub.add_parser("export-openapi", help="print (or write) the OpenAPI document")
    export.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env()
    except ValueError as exc:
        parser.error(str(exc))
    if args.command in {"serve", "worker", "run"}:
        from service.observability import configure_logging

        configure_logging(settings.log_level)
    if args.command == "serve":
        _serve(settings)
    elif args.command == "worker":
        from workers.main import parse_queues, run_worker

        try:
            queue_names = parse_queues(args.queues)
        except ValueError as exc:
            parser.error(str(exc))
        run_worker(settings, queue_names=queue_names)
    elif args.command == "worker-health":
        from workers.main import worker_healthy

        sys.exit(0 if worker_healthy(settings) else 1)
    elif args.command == "run":
        _run(settings)
    elif args.command == "verify":
        sys.exit(_verify(args.replay))
    else:
        _export(args.output)


if __name__ == "__main__":
    main()
