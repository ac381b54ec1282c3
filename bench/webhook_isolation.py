"""How long another key's bot waits while one key's webhook receiver trickles its answer.

    .venv/bin/python bench/webhook_isolation.py [--rounds 3]

Key A's receiver answers one byte a second; while its delivery is held open, key B creates
a two-bot game and we time its first bot move. Two layouts over one embedded Valkey:

- ``shared``: one worker process serving bots, scoring and webhooks (the layout before
  deliveries got workers of their own; the deliveries now run on a thread of that process);
- ``separate``: ``stakeout worker`` plus ``stakeout worker --queues webhooks`` (today's).

The delivery deadline is the default 5 s in both. A measurement, not a test.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import redis
from litestar.testing import TestClient
from rq import Worker

from service.app import create_app
from service.settings import Settings
from service.store.keys import deliverer_alive_key
from tests.processes import embedded_redis, running, service_env
from tests.receiver import Receiver

A, B = "bench-key-a", "bench-key-b"
LAYOUTS = {"shared": ["bots,scoring,webhooks"], "separate": ["bots,scoring", "webhooks"]}


def one_round(url: str, layout: str, folder: Path) -> float:
    redis.Redis.from_url(url).flushdb()
    env = service_env(url, LOG_LEVEL="CRITICAL", STAKEOUT_WEBHOOK_ALLOW_PRIVATE="1")
    with running(folder) as procs, redis.Redis.from_url(url) as connection:
        for queues in LAYOUTS[layout]:
            procs.worker(env, queues)
        # All of them up first: the RQ worker (one in either layout), and the deliveries.
        while not Worker.all(connection=connection) or not connection.exists(
            deliverer_alive_key(socket.gethostname())
        ):
            time.sleep(0.05)
        return _first_bot_move(url)


def _first_bot_move(url: str) -> float:
    """Seconds from key B's game of two bots to its first move, while key A's webhook
    delivery is held open."""
    receiver = Receiver(trickle_seconds=1.0, hold_seconds=60)
    settings = Settings(
        redis_url=url, api_keys=(A, B), rate_limit_per_minute=0, webhook_allow_private=True
    )
    try:
        with TestClient(app=create_app(settings)) as api:
            hook = {"url": receiver.url, "events": ["seat.awaited"]}
            api.post("/v1/webhooks", json=hook, headers={"Authorization": f"Bearer {A}"})
            humans = {"game": "fbi", "seats": [{"type": "human"}, {"type": "human"}]}
            api.post("/v1/games", json=humans, headers={"Authorization": f"Bearer {A}"})
            if not receiver.trickling.wait(60):
                raise RuntimeError("the delivery never started")
            bots = {"game": "fbi", "seats": [{"type": "bot", "level": "random"}] * 2}
            started = time.monotonic()
            created = api.post("/v1/games", json=bots, headers={"Authorization": f"Bearer {B}"})
            game_id, at_creation = created.json()["id"], created.json()["version"]
            while api.get(f"/v1/games/{game_id}").json()["version"] <= at_creation:
                if time.monotonic() - started > 60:
                    raise RuntimeError("no bot move within 60 s")
                time.sleep(0.005)
            return time.monotonic() - started
    finally:
        receiver.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, embedded_redis(Path(tmp) / "valkey") as url:
        print("| layout | rounds | another key's first bot move: median s | max s |")
        print("|---|---|---|---|")
        for layout in LAYOUTS:
            times = [one_round(url, layout, Path(tmp)) for _ in range(args.rounds)]
            print(
                f"| {layout} | {args.rounds} | {statistics.median(times):.2f} | {max(times):.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
