"""A TCP proxy that loses an answer on its way back: the fault of a reply that never came.

Armed with a needle, the next request holding it is forwarded; the proxy then reads the
server's reply, drops it and closes both ends of that connection, so the server acted and
its caller never hears of it. Every request it forwards is recorded. Used between the app
and Valkey (a script call's reply lost) and between a client and the API (an act's answer
lost).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator


class ReplyDropper:
    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.dropped = 0  # replies dropped
        self.requests: list[bytes] = []  # what was forwarded, as read
        self._armed: bytes | None = None
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def arm(self, needle: bytes) -> None:
        """Drop the reply to the next request that holds ``needle``."""
        with self._lock:
            self._armed = needle

    def is_armed(self) -> bool:
        with self._lock:
            return self._armed is not None

    def close(self) -> None:
        self.listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            doomed = threading.Event()
            threading.Thread(target=self._up, args=(client, server, doomed), daemon=True).start()
            threading.Thread(target=self._down, args=(server, client, doomed), daemon=True).start()

    def _up(self, client: socket.socket, server: socket.socket, doomed: threading.Event) -> None:
        with _closing(client, server):
            while data := _recv(client):
                with self._lock:
                    self.requests.append(data)
                    if self._armed is not None and self._armed in data:
                        self._armed = None
                        doomed.set()
                _send(server, data)

    def _down(self, server: socket.socket, client: socket.socket, doomed: threading.Event) -> None:
        with _closing(client, server):
            while data := _recv(server):
                if doomed.is_set():  # the server acted; its caller never hears of it
                    with self._lock:
                        self.dropped += 1
                    return
                _send(client, data)


def _recv(sock: socket.socket) -> bytes:
    """What the socket has, or nothing once either end of the pair is closed."""
    try:
        return sock.recv(65536)
    except OSError:
        return b""


def _send(sock: socket.socket, data: bytes) -> None:
    with contextlib.suppress(OSError):  # the other end is gone: the loops end on their own
        sock.sendall(data)


@contextlib.contextmanager
def _closing(*socks: socket.socket) -> Iterator[None]:
    try:
        yield
    finally:
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # wakes the other thread's recv
            sock.close()
