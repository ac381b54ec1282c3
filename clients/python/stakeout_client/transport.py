"""One HTTP call with the contract's manners: the bearer, JSON bodies, an Idempotency-Key
on every act (the same key on each retry of it), retries on 429 and 503 that wait as
``Retry-After`` says, retries of safe calls after a lost connection, problems as errors."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import msgspec

from stakeout_client.errors import ProblemError, problem

T = TypeVar("T")

RETRIED_STATUSES = frozenset({429, 503})
# Safe to send twice: reads, and a cancellation or deletion (the second finds it gone).
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "DELETE"})


def idempotency_key() -> str:
    """A new key for one act (1 to 128 of ``A-Z a-z 0-9 _ . : -``)."""
    return f"sdk-{uuid.uuid4().hex}"


@dataclass(frozen=True)
class Retry:
    """What a retry hook is told: the attempt that failed and how long the client waits."""

    method: str
    path: str
    attempt: int
    wait: float
    status: int | None  # None: the connection failed
    idempotency_key: str | None


@dataclass
class Transport:
    """The HTTP layer every object of the SDK shares (one connection pool)."""

    http: httpx.Client
    max_retries: int = 5
    max_wait: float = 60.0
    on_retry: Callable[[Retry], None] | None = None
    requests: int = 0  # every request sent, retries included (bench/client_requests.py)

    def call(  # noqa: PLR0913 (the parts of one HTTP request, all keyword-only)
        self,
        method: str,
        path: str,
        *,
        token: str | None = None,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
        key: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> httpx.Response:
        """The 2xx answer; a problem raises its `ProblemError`. ``key`` is the act's
        Idempotency-Key: with one (or a safe method) a lost connection is retried too."""
        sent = {**(headers or {})}
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        if key is not None:
            sent["Idempotency-Key"] = key
        content = None
        if body is not None:
            content = msgspec.json.encode(body)
            sent["Content-Type"] = "application/json"
        query = {k: v for k, v in (params or {}).items() if v is not None}
        retryable_failure = key is not None or method in SAFE_METHODS
        attempt = 0
        while True:
            attempt += 1
            self.requests += 1
            try:
                response = self.http.request(
                    method,
                    path,
                    params=query,
                    content=content,
                    headers=sent,
                    timeout=timeout if timeout is not None else httpx.USE_CLIENT_DEFAULT,
                )
            except httpx.TransportError:
                if not retryable_failure or attempt > self.max_retries:
                    raise
                self._wait(Retry(method, path, attempt, _backoff(attempt), None, key))
                continue
            if response.is_success or response.status_code == 304:
                return response
            error = _problem(response)
            if response.status_code not in RETRIED_STATUSES or attempt > self.max_retries:
                raise error
            wait = min(self.max_wait, error.retry_after if error.retry_after is not None else 1)
            self._wait(Retry(method, path, attempt, wait, response.status_code, key))

    def decode(self, response: httpx.Response, kind: type[T]) -> T:
        return msgspec.json.decode(response.content, type=kind)

    def lines(
        self, path: str, *, token: str | None, params: Mapping[str, Any], last_id: str | None
    ) -> Iterator[dict[str, Any]]:
        """One opening of a live feed as JSON lines (``Accept: application/x-ndjson``)."""
        headers = {"Accept": "application/x-ndjson"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if last_id is not None:
            headers["Last-Event-ID"] = last_id
        query = {k: v for k, v in params.items() if v is not None}
        self.requests += 1
        # The server pings every 15 s: a read waits longer than that before giving up.
        timeout = httpx.Timeout(10.0, read=40.0)
        with self.http.stream(
            "GET", path, params=query, headers=headers, timeout=timeout
        ) as response:
            if not response.is_success:
                response.read()
                raise _problem(response)
            for line in response.iter_lines():
                if line.strip():
                    yield msgspec.json.decode(line)

    def _wait(self, retry: Retry) -> None:
        if self.on_retry is not None:
            self.on_retry(retry)
        time.sleep(retry.wait)


def _backoff(attempt: int) -> float:
    return float(min(5.0, 0.2 * 2 ** (attempt - 1)))


def _problem(response: httpx.Response) -> ProblemError:
    try:
        body = msgspec.json.decode(response.content)
    except msgspec.DecodeError:
        body = None
    if not isinstance(body, dict):
        body = {"status": response.status_code, "detail": response.text[:500]}
    retry_after = None
    if "Retry-After" in response.headers:
        try:
            retry_after = float(response.headers["Retry-After"])
        except ValueError:
            retry_after = None
    return problem(response.status_code, body, retry_after)
