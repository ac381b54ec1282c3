"""Ids unique across processes without a system call each: a random prefix drawn once per
process (again in a forked child, so parent and child never share one) and a counter.

Request ids (`service.http.observability`) and the append call's nonce (`service.store.event_store`)
are drawn here; a fresh random value per call would cost a ``getrandom`` call each.
"""

from __future__ import annotations

import itertools
import os
import secrets


class _Source:
    __slots__ = ("counter", "prefix")

    def __init__(self) -> None:
        self.reseed()

    def reseed(self) -> None:
        self.prefix = secrets.token_hex(8)
        self.counter = itertools.count(1)


_source = _Source()
os.register_at_fork(after_in_child=_source.reseed)


def request_id() -> str:
    """32 hex digits: the process's prefix and a 16-digit counter."""
    return f"{_source.prefix}{next(_source.counter):016x}"


def nonce() -> str:
    """The process's prefix and the counter in as few hex digits as it needs."""
    return f"{_source.prefix}{next(_source.counter):x}"
