"""The request path's Redis connections write a command at once: no asyncio task per
command (redis-py's ``wait_for`` made one on Python 3.11), and the reply still bounded by
the socket timeout, so a frozen Redis costs one timeout."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

import pytest
import redis

from service.context import event_redis
from service.embedded import EmbeddedRedis
from service.redis_connection import DirectConnection
from service.settings import Settings


def _counting_tasks(loop: asyncio.AbstractEventLoop, made: list[int]) -> None:
    def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
        made[0] += 1
        return asyncio.Task(coro, loop=loop, **kwargs)

    loop.set_task_factory(factory)


def test_store_commands_make_no_task_each(settings: Settings) -> None:
    async def scenario() -> tuple[type, int, list[Any]]:
        client = event_redis(settings)
        try:
            await client.ping()  # connected before counting
            made = [0]
            _counting_tasks(asyncio.get_running_loop(), made)
            answers = []
            for i in range(20):
                await client.set("direct:key", i)
                answers.append(await client.get("direct:key"))
            return client.connection_pool.connection_class, made[0], answers
        finally:
            await client.aclose()

    connection_class, tasks, answers = asyncio.run(scenario())
    assert connection_class is DirectConnection
    assert tasks == 0
    assert answers == [str(i).encode() for i in range(20)]


def test_a_frozen_redis_still_times_out_on_the_reply(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path / "valkey")
    url = server.start()
    pid = server._server._process.pid
    try:

        async def scenario() -> type[BaseException] | None:
            client = event_redis(Settings(redis_url=url), timeout=0.5)
            try:
                await client.ping()
                os.kill(pid, signal.SIGSTOP)
                failed: type[BaseException] | None = None
                try:
                    # Bounded from outside too: an unbounded wait fails the test here
                    # (as a plain TimeoutError), not by hanging it.
                    async with asyncio.timeout(30):
                        await client.get("anything")
                except redis.RedisError as exc:
                    failed = type(exc)
                return failed
            finally:
                os.kill(pid, signal.SIGCONT)
                await client.aclose()

        failed = asyncio.run(scenario())
    finally:
        server.stop()
    assert failed is not None
    assert issubclass(failed, redis.TimeoutError)


@pytest.mark.parametrize("url", ["rediss://example:6380/0", "unix:///tmp/redis.sock"])
def test_other_schemes_keep_their_own_connection_class(url: str) -> None:
    client = event_redis(Settings(redis_url=url))
    assert client.connection_pool.connection_class is not DirectConnection
