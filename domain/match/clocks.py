"""Clocks (time banks), derived from the log's own times (issue 34).

A game created with a `Clock` gives each seat a bank. Every act's events are stored with
one time (``at_ms``); before an act is decided, each seat the game awaited since the
previous act is charged the time between the two (`charge`): every human seat with an
awaited move, commitment or reveal, so in a sealed step every seat that still owes one is
charged at once. After the act, its seat gets the increment, the bank capped at the
initial one (`credit`). A bot's seat is never charged.

Since the banks are a function of the events and their times, a replay re-derives every
one (``stakeout verify``), and a restart, a failover or a killed worker changes none. A
time-out is accepted only once the seat's bank is empty at the time-out's own time
(`domain.match.forfeits.time_out`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import msgspec

from domain.engine import AnyGame
from domain.match.acts import CommitSeal, MakeMove, RevealSeal, TimeOut
from domain.match.state import Banks, Match, fold
from domain.match.turns import awaiting


def running(game: AnyGame, match: Match) -> set[int]:
    """The seats whose bank runs now: human seats the game awaits (none without a clock)."""
    if match.banks is None:
        return set()
    return {a.seat for a in awaiting(game, match) if match.seats[a.seat].type == "human"}


def charge(
    game: AnyGame, match: Match, at_ms: int, awaited: Collection[int] | None = None
) -> Match:
    """``match`` with its banks charged up to ``at_ms`` (the next act's time): the seats it
    awaited lose the time since the last act. A time before the last one charges nothing
    (two processes' clocks may differ by a little; the log's order wins). ``awaited``: the
    seats `running` names, when the caller has them (worked out once per snapshot)."""
    banks = match.banks
    if banks is None:
        return match
    if banks.since_ms == 0:  # the opening events: the banks start here
        return msgspec.structs.replace(match, banks=Banks(banks.remaining_ms, at_ms))
    elapsed = at_ms - banks.since_ms
    if elapsed <= 0:
        return match
    seats = running(game, match) if awaited is None else awaited
    remaining = tuple(
        max(0, left - elapsed) if seat in seats else left
        for seat, left in enumerate(banks.remaining_ms)
    )
    return msgspec.structs.replace(match, banks=Banks(remaining, at_ms))


def credit(match: Match, act: Any) -> Match:
    """``match`` after ``act``: its seat's bank gains the increment, capped at the initial
    bank. A seat's own acts count (a move, a commitment, a reveal) and a ``bot_turn``
    time-out (the seat then has its increment for its next turn)."""
    clock, banks = match.clock, match.banks
    if clock is None or banks is None or not clock.increment_seconds:
        return match
    if isinstance(act, TimeOut):
        if clock.on_time_out != "bot_turn":
            return match
    elif not isinstance(act, MakeMove | CommitSeal | RevealSeal):
        return match
    seat = act.seat
    if not 0 <= seat < len(banks.remaining_ms):
        return match
    cap = clock.initial_seconds * 1000
    remaining = list(banks.remaining_ms)
    remaining[seat] = min(cap, remaining[seat] + clock.increment_seconds * 1000)
    return msgspec.structs.replace(match, banks=Banks(tuple(remaining), banks.since_ms))


def fold_stored(
    game: AnyGame, match: Match | None, event: Any, at_ms: int, act: Any = None
) -> Match:
    """Fold one stored event with its time: ``act`` is given on an act's first event (the
    act that made the batch), so the banks are charged and credited once per act."""
    banks = match.banks if match is not None else None
    if match is not None and banks is not None:
        if act is not None:
            match = credit(charge(game, match, at_ms), act)
        elif banks.since_ms == 0:
            match = charge(game, match, at_ms)
    return fold(game, match, event)


def remaining_ms(
    game: AnyGame, match: Match, now_ms: int, awaited: Collection[int] | None = None
) -> list[int] | None:
    """Each seat's bank at ``now_ms`` (None without a clock): as charged, less the time
    since the last act for the seats it runs for."""
    banks = match.banks
    if banks is None:
        return None
    if not banks.since_ms:
        return list(banks.remaining_ms)
    seats = running(game, match) if awaited is None else awaited
    elapsed = max(0, now_ms - banks.since_ms)
    return [
        max(0, left - elapsed) if seat in seats else left
        for seat, left in enumerate(banks.remaining_ms)
    ]


def flag_ms(match: Match, seat: int) -> int | None:
    """When ``seat``'s flag falls if it does not act (epoch ms), while its bank runs."""
    banks = match.banks
    if banks is None or not banks.since_ms:
        return None
    return banks.since_ms + banks.remaining_ms[seat]


def empty(match: Match, seat: int) -> bool:
    """Whether ``seat``'s bank is empty as charged (`charge` to the time-out's time first)."""
    banks = match.banks
    return banks is not None and banks.remaining_ms[seat] <= 0
