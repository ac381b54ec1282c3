"""Iterators over the contract's pages: by cursor (games, lobby, a player's games,
leaderboards), by version (a game's events) and by offset (a webhook's deliveries)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")


def by_cursor(fetch: Callable[[str | None], Any], items: str) -> Iterator[Any]:
    """Every item of every page: ``next_cursor`` passed back as ``cursor`` until null."""
    cursor: str | None = None
    while True:
        page = fetch(cursor)
        yield from getattr(page, items)
        cursor = page.next_cursor
        if cursor is None:
            return


def by_version(fetch: Callable[[int], Any], after: int = 0) -> Iterator[Any]:
    """Every event record after ``after``: ``next_after`` while ``has_more``."""
    while True:
        page = fetch(after)
        yield from page.events
        if not page.has_more:
            return
        after = page.next_after


def by_offset(fetch: Callable[[int], Any], items: str) -> Iterator[Any]:
    """Every item: ``next_offset`` passed back as ``offset`` until null."""
    offset = 0
    while True:
        page = fetch(offset)
        yield from getattr(page, items)
        if page.next_offset is None:
            return
        offset = page.next_offset
