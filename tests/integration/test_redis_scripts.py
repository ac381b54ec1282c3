"""The lean script call of the request path (service/redis_scripts.py) on a real server."""

from __future__ import annotations

import asyncio

import redis.asyncio

from service.redis_connection import direct_client
from service.redis_scripts import Scripts

ECHO = "return {KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]) + 1}"


def _client(url: str) -> redis.asyncio.Redis:
    retry = redis.asyncio.retry.Retry(redis.backoff.NoBackoff(), 1, (redis.ConnectionError,))
    return direct_client(url, retry=retry, socket_timeout=2)


def test_a_script_answers_as_redis_py_does_and_is_loaded_when_the_server_lost_it(
    clean_redis: str,
) -> None:
    async def run() -> None:
        client = _client(clean_redis)
        try:
            script = Scripts(client).script(ECHO)
            plain = client.register_script(ECHO)
            args: list[str | bytes | int] = ["a", b"\x00\xffb", 41]
            expected = await plain(keys=["k"], args=args)
            assert await script(["k"], args) == expected == [b"k", b"a", b"\x00\xffb", 42]
            await client.script_flush()  # a restarted server knows no script
            assert await script(["k"], args) == expected
        finally:
            await client.aclose()

    asyncio.run(run())


def test_a_broken_connection_is_replaced_once_and_the_pool_stays_usable(
    clean_redis: str,
) -> None:
    async def run() -> None:
        client = _client(clean_redis)
        admin = redis.asyncio.Redis.from_url(clean_redis)
        try:
            script = Scripts(client).script(ECHO)
            assert await script(["k"], ["x", "y", 1]) == [b"k", b"x", b"y", 2]
            # Every connection of the client is closed by the server: the next call's
            # pooled connection is broken and replaced (by the pool check or a resend).
            await admin.client_kill_filter(_type="normal", skipme=True)
            assert await script(["k"], ["x", "y", 2]) == [b"k", b"x", b"y", 3]
            results = await asyncio.gather(*(script(["k"], ["x", "y", i]) for i in range(20)))
            assert [r[3] for r in results] == list(range(1, 21))
            # Twenty held connections, all closed by the server (as by a restart): each
            # call's first try fails on one, its second try takes one the pool checked.
            await admin.client_kill_filter(_type="normal", skipme=True)
            results = await asyncio.gather(*(script(["k"], ["x", "y", i]) for i in range(20)))
            assert [r[3] for r in results] == list(range(1, 21))
        finally:
            await client.aclose()
            await admin.aclose()

    asyncio.run(run())
