"""Live feeds as iterators that resume where they broke: each line's position (the account
feed's ``cursor``, a game feed's ``version``) goes back as ``Last-Event-ID`` on the next
opening, so nothing is missed or repeated across a lost connection."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from typing import Any

import httpx

from stakeout_client.transport import Transport


def follow(
    transport: Transport,
    path: str,
    *,
    token: str | None,
    params: Mapping[str, Any] | None = None,
    last_id: str | None = None,
    reconnects: int = 5,
    pings: bool = False,
) -> Iterator[dict[str, Any]]:
    """Every message of a feed (pings too with ``pings``: one each 15 s), reopened after a
    lost connection up to ``reconnects`` times in a row; it ends when the server ends it."""
    failures = 0
    while True:
        try:
            for message in transport.lines(path, token=token, params=params or {}, last_id=last_id):
                failures = 0
                if message.get("kind") == "ping":
                    if pings:
                        yield message
                    continue
                position = message.get("cursor", message.get("version"))
                if position is not None:
                    last_id = str(position)
                yield message
            return
        except httpx.TransportError:
            failures += 1
            if failures > reconnects:
                raise
            time.sleep(min(5.0, 0.2 * 2 ** (failures - 1)))
