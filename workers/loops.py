"""A worker's own loops (the outbox's dispatcher, the matchmaker, webhook deliveries): each
on a thread with an event loop of its own, run until the worker is done and started again
whenever it stops on an error (its Redis went away, most often)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

log = logging.getLogger("stakeout.worker")


def run_until_done(
    done: threading.Event,
    body: Callable[[asyncio.Event], Awaitable[None]],
    what: str,
    restart_seconds: float,
    run: Callable[[Coroutine[Any, Any, None]], None] = asyncio.run,
) -> None:
    """Run ``body(stop)`` on a new event loop (``run``: asyncio's, or uvloop's) until
    ``done`` is set, when ``stop`` is set for it to finish what is under way. A ``body``
    that raises is logged as ``what`` and run again after ``restart_seconds``."""

    async def loop_until_done() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        watcher = threading.Thread(
            target=lambda: (done.wait(), loop.call_soon_threadsafe(stop.set)), daemon=True
        )
        watcher.start()
        while not stop.is_set():
            try:
                await body(stop)
            except Exception:
                log.warning("%s stopped; starting again", what, exc_info=True)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), restart_seconds)

    run(loop_until_done())
