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
import redis.asyncio

from service.ops.embedded import EmbeddedRedis
from service.settings import Settings
from service.store.clients import event_redis
from service.store.connection import DirectConnection, DirectUnixConnection


def _counting_tasks(loop: asyncio.AbstractEventLoop, made: list[int]) -> None:
    def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
        made[0] += 1
        return asyncio.Task(coro, loop=loop, **kwargs)

    loop.set_task_factory(factory)


def test_store_commands_make_no_task_each(settings: Settings) -> None:
    async def scenario() -> tuple[type, int, list[Any]]:
        client = event_redis(settings)
        assert isinstance(client, redis.asyncio.Redis)  # a single server, not a cluster
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


def test_over_the_embedded_servers_unix_socket_too(tmp_path: Path) -> None:
    """`stakeout run` connects its processes over the embedded server's Unix socket."""
    server = EmbeddedRedis(tmp_path / "v", unix_socket=True)
    url = server.start()
    try:
        assert url.startswith("unix://")

        async def scenario() -> tuple[type, int, Any]:
            client = event_redis(Settings(redis_url=url))
            assert isinstance(client, redis.asyncio.Redis)
            try:
                await client.ping()
                made = [0]
                _counting_tasks(asyncio.get_running_loop(), made)
                await client.set("direct:key", "over the socket")
                answer = await client.get("direct:key")
                return client.connection_pool.connection_class, made[0], answer
            finally:
                await client.aclose()

        connection_class, tasks, answer = asyncio.run(scenario())
        # The same key is there over TCP: one server, two ways in.
        over_tcp = redis.Redis.from_url(server.tcp_url).get("direct:key")
    finally:
        server.stop()
    assert connection_class is DirectUnixConnection
    assert tasks == 0
    assert answer == over_tcp == b"over the socket"


@pytest.mark.parametrize("unix_socket", [False, True], ids=["tcp", "unix"])
def test_a_frozen_redis_still_times_out_on_the_reply(tmp_path: Path, unix_socket: bool) -> None:
    server = EmbeddedRedis(tmp_path / "valkey", unix_socket=unix_socket)
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


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("rediss://example:6380/0", redis.asyncio.SSLConnection),
        ("unix:///tmp/redis.sock", DirectUnixConnection),
        ("redis://example:6379/0", DirectConnection),
    ],
)
def test_each_scheme_gets_its_connection_class(url: str, expected: type) -> None:
    """TLS keeps redis-py's own class; plain TCP and Unix sockets write at once."""
    client = event_redis(Settings(redis_url=url))
    assert client.connection_pool.connection_class is expected  # type: ignore[union-attr]
