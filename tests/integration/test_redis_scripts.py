"""The lean script call of the request path (service/store/scripts.py) on a real server."""

from __future__ import annotations

import asyncio

import redis.asyncio

from service.store.connection import direct_client
from service.store.scripts import Scripts

ECHO = "return {KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]) + 1}"


def _client(url: str) -> redis.asyncio.Redis:
    retry = redis.asyncio.retry.Retry(redis.backoff.NoBackoff(), 1, (redis.ConnectionError,))
    return direct_client(url, retry=retry, socket_timeout=2)


def test_a_script_answers_as_redis_py_does_and_is_loaded_when_the_server_lost_it(
    clean_redis: str,
) -> None:
    async def run() -> None:
        client = _client(clean_redis)
        scripts = Scripts(client)
        try:
            script = scripts.script(ECHO)
            plain = client.register_script(ECHO)
            args: list[str | bytes | int] = ["a", b"\x00\xffb", 41]
            expected = await plain(keys=["k"], args=args)
            assert await script(["k"], args) == expected == [b"k", b"a", b"\x00\xffb", 42]
            await client.script_flush()  # a restarted server knows no script
            assert await script(["k"], args) == expected
        finally:
            scripts.close()
            await client.aclose()

    asyncio.run(run())


def test_a_broken_connection_is_replaced_and_every_call_answered_once(
    clean_redis: str,
) -> None:
    async def run() -> None:
        client = _client(clean_redis)
        scripts = Scripts(client)
        admin = redis.asyncio.Redis.from_url(clean_redis)
        try:
            script = scripts.script(ECHO)
            assert await script(["k"], ["x", "y", 1]) == [b"k", b"x", b"y", 2]
            # Every connection of the client is closed by the server: the next call finds
            # the shared connection broken and makes a new one.
            await admin.client_kill_filter(_type="normal", skipme=True)
            assert await script(["k"], ["x", "y", 2]) == [b"k", b"x", b"y", 3]
            results = await asyncio.gather(*(script(["k"], ["x", "y", i]) for i in range(20)))
            assert [r[3] for r in results] == list(range(1, 21))
            # Closed again (as by a restart) while twenty calls are about to be made: each
            # is answered, once, over the next connection.
            await admin.client_kill_filter(_type="normal", skipme=True)
            results = await asyncio.gather(*(script(["k"], ["x", "y", i]) for i in range(20)))
            assert [r[3] for r in results] == list(range(1, 21))
        finally:
            scripts.close()
            await client.aclose()
            await admin.aclose()

    asyncio.run(run())


def test_tls_and_cluster_clients_keep_redis_pys_script_calls() -> None:
    """The shared connection speaks plain TCP or a Unix socket only."""
    assert Scripts(_client("rediss://example:6380/0")).shared is None
    assert Scripts(_client("redis://example:6379/0")).shared is not None
    assert Scripts(_client("unix:///tmp/redis.sock")).shared is not None
