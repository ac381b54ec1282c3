"""How much an ``expert`` bot may think over one move.

Every expert samples hidden cards and plays candidate moves out in each sample. A
``Budget`` bounds that loop two ways:

- ``effort`` scales each game's tuned sample count (1.0: the count its strength table in the
  docs/bots.md was measured with). Sample counts, unlike seconds, are the same on every machine,
  so with ``seconds=None`` a bot's choice depends only on its view and its random stream:
  tests and the strength benchmark use that.
- ``seconds`` caps the wall-clock time. The loop stops before a sample that would, at the
  average pace so far, end past the cap. It always completes the game's minimum number
  of samples, so a tiny cap still yields a considered move, not a random one.

The service passes the deployment's budget (``STAKEOUT_BOT_SECONDS``,
``STAKEOUT_BOT_EFFORT``); a move's choice is stored as data, so replays never re-run a
bot and a cut-short search cannot make a replay disagree.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import msgspec


class Budget(msgspec.Struct, frozen=True):
    seconds: float | None = None
    effort: float = 1.0

    def __post_init__(self) -> None:
        if self.seconds is not None and self.seconds < 0:
            raise ValueError("a bot budget's seconds cannot be negative")
        if self.effort <= 0:
            raise ValueError("a bot budget's effort must be positive")

    def samples(self, tuned: int, minimum: int) -> int:
        """The sample count to aim for: ``tuned`` scaled by effort, never below ``minimum``."""
        return max(minimum, round(tuned * self.effort))

    def rounds(self, tuned: int, minimum: int) -> Iterator[int]:
        """The sample numbers 0, 1, … an expert may take: at most ``samples(tuned,
        minimum)``, and no more than the clock allows (``minimum`` always)."""
        total = self.samples(tuned, minimum)
        pacer = self.pacer(minimum)
        done = 0
        while done < total and pacer.another(done):
            yield done
            done += 1

    def pacer(self, minimum: int, clock: Callable[[], float] | None = None) -> Pacer:
        """Start the clock for one move (``minimum`` samples are always allowed)."""
        return Pacer(self.seconds, minimum, clock or time.monotonic)


class Pacer:
    """The clock of one move's sampling loop: ask ``another(done)`` before each sample."""

    def __init__(self, seconds: float | None, minimum: int, clock: Callable[[], float]) -> None:
        self._seconds = seconds
        self._minimum = max(1, minimum)
        self._clock = clock
        self._start = clock()

    def another(self, done: int) -> bool:
        """May sample number ``done + 1`` start, ``done`` samples having taken the time so far?"""
        if done < self._minimum or self._seconds is None:
            return True
        elapsed = self._clock() - self._start
        # At the pace so far, would one more sample still end inside the budget?
        return elapsed * (done + 1) / done <= self._seconds


#: Each expert's tuned sample count and no clock: reproducible, the default in `domain`.
TUNED = Budget()
