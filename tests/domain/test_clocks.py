"""Clocks in the domain (issue 34): banks are a function of the events and their times."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain import registry
from domain.errors import WrongPhase
from domain.match import Clock, CommitSeal, MakeMove, Match, MatchEngine, SeatSpec, TimeOut
from domain.sealed import commitment

SEED = b"\x07" * 32
T0 = 1_000_000


def _engine() -> MatchEngine:
    engine = registry.engine_for("fbi")
    assert engine is not None
    return engine


def _opened(engine: MatchEngine, seats: list[SeatSpec], clock: Clock | None) -> Match:
    match = None
    for event in engine.create("a" * 24, {}, seats, SEED, clock):
        match = engine.fold_stored(match, event, T0)
    assert match is not None
    return match


def _act(engine: MatchEngine, match: Match, act: Any, at_ms: int) -> Match:
    """An act at ``at_ms`` as the service makes it: charged, decided, folded, credited."""
    charged = engine.charged(match, at_ms)
    for event in engine.perform(charged, act, SEED):
        charged = engine.fold(charged, event)
    return engine.credited(charged, act)


def _banks(match: Match) -> tuple[int, ...]:
    assert match.banks is not None
    return match.banks.remaining_ms


def test_public_and_sealed_steps_charge_the_awaited_seats_and_acts_credit_capped() -> None:
    engine = _engine()
    match = _opened(engine, [SeatSpec("human"), SeatSpec("human")], Clock(60, 2))
    assert _banks(match) == (60_000, 60_000)
    first = engine.awaiting(match)[0].seat
    other = 1 - first
    legal = engine.legal(match, first)[0]
    match = _act(engine, match, MakeMove(first, legal), T0 + 1_000)  # 1 s charged, 2 s back
    assert _banks(match)[first] == 60_000  # capped at the initial bank
    assert _banks(match)[other] == 60_000  # not awaited: not charged
    match = _act(engine, match, MakeMove(other, engine.legal(match, other)[0]), T0 + 11_000)
    assert _banks(match)[other] == 60_000 - 10_000 + 2_000
    # A sealed step: both seats owe a commitment, both are charged until each commits.
    assert {a.action for a in engine.awaiting(match)} == {"commit"}
    step = engine.awaiting(match)[0].step
    move = engine.legal(match, first)[0]
    digest = commitment("a" * 24, step, first, msgspec.to_builtins(move), "ab" * 16)
    match = _act(engine, match, CommitSeal(first, digest), T0 + 16_000)
    assert _banks(match) == tuple(
        60_000 - 5_000 + 2_000 if seat == first else 52_000 - 5_000 for seat in range(2)
    )
    assert engine.clocks(match, T0 + 20_000) == [
        57_000 if seat == first else 47_000 - 4_000 for seat in range(2)
    ]


def test_a_time_out_is_refused_until_the_bank_is_empty_by_the_acts_own_time() -> None:
    engine = _engine()
    seats = [SeatSpec("human"), SeatSpec("bot", "random")]
    match = _opened(engine, seats, Clock(5, 0, "lose"))
    awaited = engine.awaiting(match)[0]
    if awaited.seat != 0:  # the bot opens: it is never charged
        match = _act(engine, match, MakeMove(1, engine.legal(match, 1)[0]), T0 + 700)
        assert _banks(match) == (5_000, 5_000)
        awaited = engine.awaiting(match)[0]
    since = match.banks.since_ms if match.banks else 0
    timeout = TimeOut(0, awaited.action, awaited.step)
    with pytest.raises(WrongPhase, match="still has time"):
        _act(engine, match, timeout, since + 4_999)
    after = _act(engine, match, timeout, since + 5_000)
    assert after.seats[0].type == "bot"
    assert after.lost_on_time == [0]
    assert after.flagged == [0]


def test_a_game_without_a_clock_has_no_banks_and_times_out_as_before() -> None:
    engine = _engine()
    match = _opened(engine, [SeatSpec("human"), SeatSpec("human")], None)
    assert match.banks is None
    assert engine.clocks(match, T0 + 1) is None
    awaited = engine.awaiting(match)[0]
    events = engine.perform(match, TimeOut(awaited.seat, awaited.action, awaited.step), SEED)
    assert type(events[0]).__name__ == "TurnTimedOut"
