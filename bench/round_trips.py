"""Redis round trips per act: on the request path and after it. Not a test.

    .venv/bin/python bench/round_trips.py [--acts 200]

Plays 4-player FBI games (every seat a human, so no bot jobs) through the real app
in-process, on a real Valkey it starts, with the rate limit off. Every command or pipeline a
redis-py connection sends (async: the event store; sync: the queue Redis), and every script
call on the event store's shared connection (`service.store.multiplex`), is counted: one
send is one round trip. For each act it counts the round trips made while the POST was
being answered (outside the follow-up task), then those its follow-up made after the answer
(in versions that have one: the task named ``stakeout-follow-ups``; the bench waits for it).
The sync client (the queue Redis, RQ) counts on the request path only where it is called
there. The GET of the view before each act is counted separately.

Run it on another checkout (``PYTHONPATH=<checkout> python bench/round_trips.py``) to
compare versions: it uses only what both have.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import redis.asyncio.connection as async_connection
import redis.connection as sync_connection
from litestar.testing import TestClient

from domain.sealed import commitment
from service.app import create_app
from service.ops.embedded import EmbeddedRedis
from service.settings import Settings

API_KEY = "sk_bench"
SENT: Counter[str] = Counter()
POST_COMMANDS: Counter[str] = Counter()
FOLLOW_UP_COMMANDS: Counter[str] = Counter()  # sent by the background follow-up task
_IN_POST = [False]


def _name(command: Any) -> str:
    """The command's name, read from its RESP encoding (a pipeline: its first command)."""
    first = command[0] if isinstance(command, list | tuple) else command
    parts = bytes(first).split(b"\r\n")
    return parts[2].decode(errors="replace").upper() if len(parts) > 2 else "?"


def _sent_async(name: str, command: Any) -> None:
    """One command sent from the event loop: by the follow-up task, or while a POST is
    answered."""
    SENT[name] += 1
    task = asyncio.current_task()
    if task is not None and task.get_name() == "stakeout-follow-ups":
        FOLLOW_UP_COMMANDS[_name(command)] += 1
    elif _IN_POST[0]:
        POST_COMMANDS[_name(command)] += 1


def _count(module: Any, name: str) -> None:
    original = module.AbstractConnection.send_packed_command

    if asyncio.iscoroutinefunction(original):

        async def counted_async(self: Any, command: Any, check_health: bool = True) -> None:
            _sent_async(name, command)
            await original(self, command, check_health)

        module.AbstractConnection.send_packed_command = counted_async
    else:

        def counted(self: Any, command: Any, check_health: bool = True) -> None:
            SENT[name] += 1
            if _IN_POST[0]:
                POST_COMMANDS[_name(command)] += 1
            original(self, command, check_health)

        module.AbstractConnection.send_packed_command = counted


def _count_shared(name: str) -> None:
    """The request path's script calls on the one shared connection of a process
    (service/store/multiplex.py, since the fourth pass) bypass redis-py's connections:
    count each call there too (calls of one event loop turn leave in one write, but each
    waits for its own reply, so each is a round trip of its caller's)."""
    try:
        from service.store.multiplex import Multiplexed
    except ImportError:  # a checkout from before it
        return
    original = Multiplexed.execute

    async def counted(self: Any, command: bytes) -> Any:
        _sent_async(name, command)
        return await original(self, command)

    Multiplexed.execute = counted  # type: ignore[method-assign]


def _total() -> int:
    return sum(SENT.values())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--acts", type=int, default=200)
    args = parser.parse_args()
    _count(async_connection, "event store")
    _count_shared("event store")
    _count(sync_connection, "queue")
    rng = random.Random(13)
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp))
        url = server.start()
        settings = Settings(redis_url=url, api_keys=(API_KEY,), rate_limit_per_minute=0)
        app = create_app(settings)
        per_post: list[int] = []
        per_follow_up: list[int] = []
        per_get: list[int] = []
        try:
            with TestClient(app=app) as client:
                # Versions with follow-ups in the API process have them on the process's
                # objects; since the outbox (service/store/outbox.py) they run on the
                # workers' dispatchers, none here.
                holder = getattr(app.state, "wiring", None) or getattr(app.state, "ctx", None)
                follow_ups = getattr(holder, "follow_ups", None)

                def settle() -> None:
                    if follow_ups is not None:
                        client.blocking_portal.call(follow_ups.drain, 10.0)

                acts = 0
                while acts < args.acts:
                    created = client.post(
                        "/v1/games",
                        json={"game": "fbi", "seats": [{"type": "human"}] * 4},
                        headers={"Authorization": f"Bearer {API_KEY}"},
                    ).json()
                    settle()
                    game_id, kept = created["id"], {}
                    tokens = [s["token"] for s in created["seats"]]
                    seat = 0
                    while acts < args.acts:
                        headers = {"Authorization": f"Bearer {tokens[seat]}"}
                        before = _total()
                        view = client.get(f"/v1/games/{game_id}", headers=headers).json()
                        per_get.append(_total() - before)
                        if view["status"] == "finished":
                            break
                        mine = [a for a in view["awaiting"] if a["seat"] == seat]
                        if not mine:
                            seat = view["awaiting"][0]["seat"]
                            continue
                        action = mine[0]
                        base = f"/v1/games/{game_id}"
                        if action["action"] == "move":
                            path, body = f"{base}/moves", rng.choice(view["legal"])
                        elif action["action"] == "commit":
                            move, salt = rng.choice(view["legal"]), secrets.token_hex(16)
                            kept[seat] = (move, salt)
                            digest = commitment(game_id, action["step"], seat, move, salt)
                            path, body = f"{base}/commitments", {"commitment": digest}
                        else:
                            move, salt = kept.pop(seat)
                            path, body = f"{base}/reveals", {"move": move, "salt": salt}
                        before = sum(POST_COMMANDS.values())
                        follow_before = sum(FOLLOW_UP_COMMANDS.values())
                        _IN_POST[0] = True
                        response = client.post(path, json=body, headers=headers)
                        _IN_POST[0] = False
                        assert response.status_code == 200, response.text
                        settle()
                        per_post.append(sum(POST_COMMANDS.values()) - before)
                        per_follow_up.append(sum(FOLLOW_UP_COMMANDS.values()) - follow_before)
                        acts += 1
        finally:
            server.stop()
    n = len(per_post)
    print(f"{n} acts (4-player FBI, every seat human; rate limit off)")
    print(f"round trips per act, answering the POST: {sum(per_post) / n:.2f}")
    print(f"round trips per act, after the answer (follow-ups): {sum(per_follow_up) / n:.2f}")
    print(f"round trips per GET of the view: {sum(per_get) / len(per_get):.2f}")
    print(f"by server, all requests: {dict(SENT)}")
    print(f"sent while a POST was answered, by command: {dict(POST_COMMANDS.most_common())}")
    print(f"sent by follow-ups, by command: {dict(FOLLOW_UP_COMMANDS.most_common())}")


if __name__ == "__main__":
    main()
