"""Real local HTTP servers that receive webhook deliveries: a plain one, and hostile ones."""

from __future__ import annotations

import contextlib
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class Receiver:
    """A local HTTP receiver that fails its first ``failures`` requests with a 500 (and,
    with ``fail_every``, every request whose number is a multiple of it; with
    ``fail_first_attempts``, the first request of each delivery, by its ``Stakeout-Delivery``
    header), answering each after ``delay_seconds``.

    ``fail_every`` fails by the order of arrival across deliveries: two deliveries retried in
    step can keep landing one on the failing number until it is out of retries, which is
    the worker's designed give-up, not a loss. ``fail_first_attempts`` makes every delivery
    need exactly one retry.

    Hostile modes, for the delivery worker's limits:

    - ``trickle_seconds``: after reading the request, send the response one byte every
      ``trickle_seconds`` (starting with the status line), until `release` is called or
      ``hold_seconds`` have passed. `trickling` is set while a response is being trickled.
    - ``flood_bytes``: answer 200 and then a body of that many bytes, as fast as the client
      takes them; `sent` counts the body bytes the client accepted before it hung up.

    ``tls`` (a certificate and its key): HTTPS, at ``https://localhost:<port>/hook``.
    """

    def __init__(
        self,
        failures: int = 0,
        trickle_seconds: float = 0.0,
        hold_seconds: float = 60.0,
        flood_bytes: int = 0,
        fail_every: int = 0,
        fail_first_attempts: bool = False,
        delay_seconds: float = 0.0,
        tls: tuple[Path, Path] | None = None,
    ) -> None:
        self.failures = failures
        self.requests: list[tuple[dict[str, str], bytes]] = []
        self.trickling = threading.Event()
        self.released = threading.Event()
        self.trickles_ended: list[float] = []  # monotonic times a trickled response ended
        self.sent = 0
        seen_deliveries: set[str] = set()
        seen_lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append((dict(self.headers.items()), body))
                if trickle_seconds:
                    receiver._trickle(self, trickle_seconds, hold_seconds)
                    return
                if flood_bytes:
                    receiver._flood(self, flood_bytes)
                    return
                number = len(receiver.requests)
                failing = number <= receiver.failures or bool(
                    fail_every and number % fail_every == 0
                )
                if fail_first_attempts:
                    with seen_lock:
                        delivery = self.headers.get("Stakeout-Delivery", "")
                        failing = failing or delivery not in seen_deliveries
                        seen_deliveries.add(delivery)
                if delay_seconds:
                    time.sleep(delay_seconds)
                self.send_response(500 if failing else 204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        if tls is not None:  # (certificate, key): HTTPS, named localhost
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            self.url = f"https://localhost:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _trickle(self, handler: BaseHTTPRequestHandler, every: float, hold: float) -> None:
        response = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
        started = time.monotonic()
        self.trickling.set()
        try:
            for i in range(len(response)):
                if self.released.is_set() or time.monotonic() - started > hold:
                    break
                handler.wfile.write(response[i : i + 1])
                handler.wfile.flush()
                self.released.wait(every)
        except OSError:  # the client gave up
            pass
        finally:
            self.trickles_ended.append(time.monotonic())
            handler.close_connection = True

    def _flood(self, handler: BaseHTTPRequestHandler, total: int) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(total))
        handler.end_headers()
        chunk = b"x" * 65536
        try:
            while self.sent < total:
                handler.wfile.write(chunk)
                handler.wfile.flush()
                self.sent += len(chunk)
        except OSError:  # the client hung up
            pass
        handler.close_connection = True

    def release(self) -> None:
        self.released.set()

    def close(self) -> None:
        self.release()
        with contextlib.suppress(OSError):
            self.server.shutdown()
            self.server.server_close()
