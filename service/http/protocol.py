"""uvicorn's httptools protocol, writing an answer's head and body in one system call.

uvicorn writes the status line and headers when the app sends ``http.response.start`` and
the body when it sends ``http.response.body``: two writes, so two system calls and, over
TCP, two segments for the client to take in, for every answer of a few hundred bytes.
This protocol hands uvicorn a transport that keeps what is written until the answer is
complete (or the event loop's current turn ends, for a streamed answer such as the SSE
feeds), then writes it at once. Nothing else changes: parsing, keep-alive, flow control
and timeouts are uvicorn's.

Used by `stakeout serve` and `stakeout run` (``--http service.http.protocol:OneWriteProtocol``
for plain uvicorn); `bench/move_path.py` serves the bare Litestar app it compares with the
same way.

It is also where a shutdown reaches the app early: uvicorn waits for every open answer to
finish before the app's lifespan ends, and a live feed does not finish by itself.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class _Coalescing:
    """A transport's write kept until `flush` (called when an answer completes, and at
    the end of the loop's turn at the latest); everything else goes to the transport."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []

    def write(self, data: bytes) -> None:
        if not self._pending:
            self._loop.call_soon(self.flush)
        self._pending.append(data)

    def flush(self) -> None:
        if self._pending:
            data = b"".join(self._pending)
            self._pending.clear()
            # The client may have gone while the bytes waited (uvloop refuses a write to a
            # closed transport with an error): nobody is left to read them.
            if not self._transport.is_closing():
                self._transport.write(data)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def __getattr__(self, name: str) -> Any:
        self.flush()  # whatever else is asked of the transport sees every byte written
        return getattr(self._transport, name)


# At shutdown, an answer still being streamed after this long (an account feed blocked in
# its read) is hung up, so the server's graceful shutdown does not wait for it.
HANG_UP_SECONDS = 1.0


class OneWriteProtocol(HttpToolsProtocol):
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        # The cycles of this connection write through it (uvicorn hands them
        # ``self.transport``); reading, flow control and addresses use the real one.
        self.transport = _Coalescing(transport, self.loop)  # type: ignore[assignment]

    def on_response_complete(self) -> None:
        self.transport.flush()  # type: ignore[attr-defined]
        super().on_response_complete()

    def shutdown(self) -> None:
        """The server shuts down (SIGTERM, Ctrl+C): live feeds end and long polls answer
        now (`drain`), keep-alive ends; an answer still streaming a moment later is hung up
        (the app is told the client left, as if it had)."""
        drain(self.app)
        super().shutdown()
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            self.loop.call_later(HANG_UP_SECONDS, self._hang_up, cycle)

    def _hang_up(self, cycle: Any) -> None:
        if cycle.response_complete or cycle.disconnected:
            return
        cycle.disconnected = True
        cycle.message_event.set()
        self.transport.close()


def drain(app: Any) -> None:
    """Every live feed of the app's process ends, every long poll answers now: its live
    readers (the wiring's `LiveFeed`, on the app's state once the lifespan has begun) hand
    their subscribers `DRAINED`. ``app``: what uvicorn serves, the app or a layer around it
    (each layer's ``app``); one without the wiring (a bench's bare app) has nothing to end."""
    for _ in range(8):
        wiring = getattr(getattr(app, "state", None), "wiring", None)
        if wiring is not None:
            wiring.live.drain()
            return
        app = getattr(app, "app", None)
        if app is None:
            return


__all__ = ["OneWriteProtocol", "drain"]
