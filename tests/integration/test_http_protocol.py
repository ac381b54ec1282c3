"""`stakeout serve`'s HTTP protocol (service/http/protocol.py) under a real uvicorn server:
an answer's head and body leave in one write, keep-alive and HEAD work as uvicorn's own,
and a streamed answer still leaves piece by piece."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn

from service.http.protocol import OneWriteProtocol
from tests.conftest import free_port

FIRST_READ = threading.Event()


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    if scope["path"] == "/stream":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"first\n", "more_body": True})
        # The second piece only once the client has read the first (or after 10 s).
        for _ in range(1000):
            if FIRST_READ.is_set():
                break
            await asyncio.sleep(0.01)
        second = b"second\n" if FIRST_READ.is_set() else b"late\n"
        await send({"type": "http.response.body", "body": second, "more_body": False})
        return
    body = b'{"status":"ok"}'
    headers = [(b"content-type", b"application/json"), (b"content-length", b"15")]
    # As Litestar sends an answer: the start and the whole body, nothing awaited between.
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture
def server() -> Iterator[int]:
    port = free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, http=OneWriteProtocol, log_level="warning"
    )
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not running.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    yield port
    running.should_exit = True
    thread.join(10)


def _answer(sock: socket.socket, request: bytes) -> bytes:
    sock.sendall(request)
    return sock.recv(65536)


def test_every_answer_arrives_whole_in_one_read_on_a_kept_alive_connection(server: int) -> None:
    request = b"GET /healthz HTTP/1.1\r\nhost: t\r\n\r\n"
    with socket.create_connection(("127.0.0.1", server)) as sock:
        firsts = [_answer(sock, request) for _ in range(50)]
    for first in firsts:
        assert first.startswith(b"HTTP/1.1 200 OK\r\n")
        assert first.endswith(b'\r\n\r\n{"status":"ok"}')  # head and body in one segment


def test_head_answers_without_a_body(server: int) -> None:
    with socket.create_connection(("127.0.0.1", server)) as sock:
        head = _answer(sock, b"HEAD /healthz HTTP/1.1\r\nhost: t\r\n\r\n")
        after = _answer(sock, b"GET /healthz HTTP/1.1\r\nhost: t\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK\r\n")
    assert head.endswith(b"\r\n\r\n")
    assert after.endswith(b'{"status":"ok"}')


def test_a_streamed_answer_leaves_piece_by_piece(server: int) -> None:
    FIRST_READ.clear()
    with socket.create_connection(("127.0.0.1", server), timeout=30) as sock:
        sock.sendall(b"GET /stream HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n")
        got = b""
        while b"first" not in got:
            got += sock.recv(65536)
        FIRST_READ.set()
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            got += chunk
    # The first piece reached the client while the app still waited to send the second.
    assert b"second\n" in got
    assert b"late" not in got


def test_bytes_kept_for_a_connection_that_closed_are_dropped_without_an_error() -> None:
    """A streamed answer's piece written after its client went away (schemathesis closes
    an event stream once it read enough) is dropped, not a loop error in the log."""
    import uvloop

    from service.http.protocol import _Coalescing

    errors: list[dict[str, Any]] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda _loop, context: errors.append(context))
        ours, theirs = socket.socketpair()
        transport, _ = await loop.connect_accepted_socket(asyncio.Protocol, ours)
        kept = _Coalescing(transport, loop)
        transport.close()
        await asyncio.sleep(0.05)
        kept.write(b"late piece")
        await asyncio.sleep(0.05)  # the flush runs in this turn of the loop
        theirs.close()

    uvloop.run(main())
    assert errors == []
