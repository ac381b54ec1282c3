"""The scripts' shared connection (service/store/multiplex.py) against real servers: replies
matched to their callers under concurrency, errors and cancellations that leave the
stream in step, a frozen server that times out, a restarted one, AUTH and SELECT."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from service.ops.embedded import EmbeddedRedis
from service.store.multiplex import Multiplexed, pack

ECHO = "return {ARGV[1], tonumber(ARGV[2]) * 2}"
FAIL = "return redis.error_reply('BOOM ' .. ARGV[1])"


def _shared(url: str, **options: Any) -> Multiplexed:
    """The connection `Scripts` makes for a client of ``url`` (its pool's settings)."""
    return Multiplexed(redis.asyncio.ConnectionPool.from_url(url, **options).connection_kwargs)


def _eval(source: str, *args: object) -> bytes:
    return pack("EVAL", source, 0, *args)


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    """A server of this test's own, to freeze, kill or lock."""
    server = EmbeddedRedis(tmp_path / "valkey", unix_socket=True)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_concurrent_calls_share_one_connection_and_each_gets_its_own_reply(
    own_server: EmbeddedRedis,
) -> None:
    async def run() -> tuple[list[object], int]:
        shared = _shared(own_server.url, socket_timeout=5)
        admin = redis.asyncio.Redis.from_url(own_server.url)
        try:
            replies = await asyncio.gather(
                *(shared.execute(_eval(ECHO, f"call {i}", i)) for i in range(300))
            )
            # This server's clients now: the admin connection and the shared one.
            return list(replies), len(await admin.client_list())
        finally:
            shared.close()
            await admin.aclose()

    replies, clients = asyncio.run(run())
    assert replies == [[f"call {i}".encode(), 2 * i] for i in range(300)]
    assert clients == 2


def test_an_error_reply_fails_its_call_only(clean_redis: str) -> None:
    async def run() -> list[object]:
        shared = _shared(clean_redis, socket_timeout=5)
        try:
            calls = [
                shared.execute(_eval(FAIL, i) if i % 3 == 0 else _eval(ECHO, "ok", i))
                for i in range(12)
            ]
            return list(await asyncio.gather(*calls, return_exceptions=True))
        finally:
            shared.close()

    replies = asyncio.run(run())
    for i, reply in enumerate(replies):
        if i % 3 == 0:
            assert isinstance(reply, redis.ResponseError)
            assert f"BOOM {i}" in str(reply)
        else:
            assert reply == [b"ok", 2 * i]


def test_an_unknown_script_is_redis_pys_no_script_error(clean_redis: str) -> None:
    async def run() -> None:
        shared = _shared(clean_redis, socket_timeout=5)
        try:
            await shared.execute(pack("EVALSHA", "0" * 40, 0))
        finally:
            shared.close()

    with pytest.raises(redis.exceptions.NoScriptError):
        asyncio.run(run())


def test_a_cancelled_caller_does_not_shift_the_replies_of_the_others(clean_redis: str) -> None:
    async def run() -> tuple[list[object], object]:
        shared = _shared(clean_redis, socket_timeout=5)
        try:
            tasks = [
                asyncio.ensure_future(shared.execute(_eval(ECHO, f"c{i}", i))) for i in range(10)
            ]
            await asyncio.sleep(0)  # every call queued
            tasks[4].cancel()
            replies = await asyncio.gather(*tasks, return_exceptions=True)
            after = await shared.execute(_eval(ECHO, "after", 21))
            return list(replies), after
        finally:
            shared.close()

    replies, after = asyncio.run(run())
    assert isinstance(replies[4], asyncio.CancelledError)
    assert [r for i, r in enumerate(replies) if i != 4] == [
        [f"c{i}".encode(), 2 * i] for i in range(10) if i != 4
    ]
    assert after == [b"after", 42]


def test_a_frozen_server_fails_the_calls_in_flight_with_a_timeout_then_recovers(
    own_server: EmbeddedRedis,
) -> None:
    pid = own_server.pid
    assert pid is not None
    url = own_server.url

    async def run() -> tuple[list[object], float, object]:
        shared = _shared(url, socket_timeout=0.5)
        try:
            assert await shared.execute(_eval(ECHO, "warm", 1)) == [b"warm", 2]
            os.kill(pid, signal.SIGSTOP)
            loop = asyncio.get_running_loop()
            started = loop.time()
            try:
                async with asyncio.timeout(30):  # an unbounded wait fails here, not hangs
                    failed = await asyncio.gather(
                        *(shared.execute(_eval(ECHO, "x", i)) for i in range(5)),
                        return_exceptions=True,
                    )
            finally:
                os.kill(pid, signal.SIGCONT)
            waited = loop.time() - started
            # The frozen server's late replies must not answer later calls.
            again = await shared.execute(_eval(ECHO, "again", 4))
            return list(failed), waited, again
        finally:
            shared.close()

    failed, waited, again = asyncio.run(run())
    assert all(isinstance(f, redis.TimeoutError) for f in failed), failed
    assert waited < 10  # one timeout of 0.5 s, not a wait for the server
    assert again == [b"again", 8]


def test_a_killed_server_fails_the_calls_then_a_restarted_one_is_reconnected(
    own_server: EmbeddedRedis,
) -> None:
    url = own_server.url

    async def run() -> tuple[object, object]:
        shared = _shared(url, socket_timeout=2, socket_connect_timeout=1)
        try:
            assert await shared.execute(_eval(ECHO, "warm", 1)) == [b"warm", 2]
            own_server.kill()
            try:
                await shared.execute(_eval(ECHO, "x", 1))
                lost: object = None
            except redis.ConnectionError as exc:
                lost = exc
            own_server.restart()
            back = await shared.execute(_eval(ECHO, "back", 3))
            return lost, back
        finally:
            shared.close()

    lost, back = asyncio.run(run())
    assert isinstance(lost, redis.ConnectionError)
    assert back == [b"back", 6]


def test_the_urls_password_and_database_are_used(own_server: EmbeddedRedis) -> None:
    admin = redis.Redis.from_url(own_server.url)
    admin.config_set("requirepass", "sesame")
    path = own_server.url.removeprefix("unix://").split("?", 1)[0]

    async def run(url: str) -> object:
        shared = _shared(url, socket_timeout=2)
        try:
            return await shared.execute(pack("SET", "where", "db 3"))
        finally:
            shared.close()

    assert asyncio.run(run(f"unix://:sesame@{path}?db=3")) == b"OK"
    locked = redis.Redis(unix_socket_path=path, password="sesame", db=3)
    assert locked.get("where") == b"db 3"
    assert redis.Redis(unix_socket_path=path, password="sesame", db=0).get("where") is None
    with pytest.raises(redis.AuthenticationError):
        asyncio.run(run(f"unix://:wrong@{path}"))


def test_once_closed_it_fails_the_calls_in_flight_and_connects_no_more(
    own_server: EmbeddedRedis,
) -> None:
    async def run() -> tuple[list[object], object, int]:
        shared = _shared(own_server.url, socket_timeout=5)
        admin = redis.asyncio.Redis.from_url(own_server.url)
        try:
            assert await shared.execute(_eval(ECHO, "warm", 1)) == [b"warm", 2]
            calls = [asyncio.ensure_future(shared.execute(_eval(ECHO, "x", i))) for i in range(3)]
            await asyncio.sleep(0)  # queued, not yet written
            shared.close()
            in_flight = await asyncio.gather(*calls, return_exceptions=True)
            try:
                await shared.execute(_eval(ECHO, "late", 1))
                late: object = None
            except redis.ConnectionError as exc:
                late = exc
            await asyncio.sleep(0.05)  # the server sees the close
            return list(in_flight), late, len(await admin.client_list())
        finally:
            await admin.aclose()

    in_flight, late, clients = asyncio.run(run())
    assert all(isinstance(c, redis.ConnectionError) for c in in_flight), in_flight
    assert isinstance(late, redis.ConnectionError)
    assert clients == 1  # the admin connection only
