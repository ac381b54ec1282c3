"""TCP (and TLS) connections for httpcore's HTTP/1.1 connections, on asyncio's own streams.

httpcore's own network backend goes through anyio, whose per-read and per-write cancel
scopes cost a webhook worker as much CPU as the rest of a delivery (bench/webhooks.py:
0.22 ms of CPU a request over these streams, 0.38–0.45 ms over anyio's, with 32 requests
under way). These streams implement httpcore's `AsyncNetworkStream` interface: read, write,
close, upgrade to TLS, and what its connections ask of a stream (``ssl_object``, the
addresses, ``is_readable``: whether an idle connection was closed by its peer). Failures are
httpcore's errors, as its own backends raise them.
"""

from __future__ import annotations

import asyncio
import select
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore

# One read takes at most this much (httpcore asks for 64 KiB at a time).
READ_LIMIT = 2**16


class AsyncioStream(httpcore.AsyncNetworkStream):
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        try:
            if timeout is None:
                return await self._reader.read(max_bytes)
            async with asyncio.timeout(timeout):
                return await self._reader.read(max_bytes)
        except TimeoutError as exc:
            raise httpcore.ReadTimeout(f"no data within {timeout:g} s") from exc
        except OSError as exc:
            raise httpcore.ReadError(str(exc) or type(exc).__name__) from exc

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        try:
            self._writer.write(buffer)
            if timeout is None:
                await self._writer.drain()
            else:
                async with asyncio.timeout(timeout):
                    await self._writer.drain()
        except TimeoutError as exc:
            raise httpcore.WriteTimeout(f"not sent within {timeout:g} s") from exc
        except (OSError, RuntimeError) as exc:  # RuntimeError: the transport is closing
            raise httpcore.WriteError(str(exc) or type(exc).__name__) from exc

    async def aclose(self) -> None:
        # Not waited for: a TLS peer that never answers the close would hold the caller.
        self._writer.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            await self._writer.start_tls(
                ssl_context, server_hostname=server_hostname, ssl_handshake_timeout=timeout
            )
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(f"no TLS handshake within {timeout} s") from exc
        except (OSError, ssl.SSLError) as exc:
            self._writer.close()
            raise httpcore.ConnectError(str(exc) or type(exc).__name__) from exc
        return self

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":  # an idle connection with something to read was closed
            return self._reader.at_eof() or _readable(self._writer.get_extra_info("socket"))
        names = {"client_addr": "sockname", "server_addr": "peername"}
        return self._writer.get_extra_info(names.get(info, info))


def _readable(sock: Any) -> bool:
    if sock is None:
        return True
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    return bool(poller.poll(0))


async def open_tcp(
    host: str,
    port: int,
    timeout: float | None = None,
    socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
) -> AsyncioStream:
    """A TCP connection to ``host`` (an address), as httpcore's backends make one."""
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection(host, port, limit=READ_LIMIT)
    except TimeoutError as exc:
        raise httpcore.ConnectTimeout(f"no connection within {timeout} s") from exc
    except OSError as exc:
        raise httpcore.ConnectError(str(exc) or type(exc).__name__) from exc
    sock = writer.get_extra_info("socket")
    for option in socket_options or ():
        sock.setsockopt(*option)
    return AsyncioStream(reader, writer)
