"""The match layer, shared by every game: sealed steps, forfeits, timeouts, results."""

from __future__ import annotations

import typing
from typing import Any

import msgspec
import pytest

from domain import registry, sealed
from domain.errors import CommitmentError, GameOver, RevealMismatch, SealedStepRequired, WrongPhase
from domain.match import (
    Abandon,
    Act,
    CommitSeal,
    GameAbandoned,
    MakeMove,
    Match,
    MatchEngine,
    RevealSeal,
    SealForfeited,
    SeatSpec,
    TimeOut,
    TurnTimedOut,
)
from domain.match.engine import ACT_HANDLERS

SEED = bytes(range(32))


def _fbi() -> tuple[MatchEngine, Match]:
    game = registry.get("fbi")
    assert game is not None
    rules = MatchEngine(game)
    return rules, rules.replay(rules.create("g1", {}, [SeatSpec("human")] * 3, SEED))


def _apply(rules: MatchEngine, match: Match, act: Any) -> list[Any]:
    """Perform ``act`` and move ``match`` (the test's one table) to the folded result."""
    events = rules.perform(match, act, SEED)
    folded = match
    for event in events:
        folded = rules.fold(folded, event)
    for name in match.__struct_fields__:
        setattr(match, name, getattr(folded, name))
    return events


def test_fold_returns_a_new_match_and_never_changes_its_input() -> None:
    rules, match = _fbi()
    step = _to_sealed_step(rules, match)
    before = msgspec.json.encode(match)
    move = msgspec.to_builtins(rules.legal(match, 0)[0])
    events = rules.perform(
        match, CommitSeal(0, sealed.commitment("g1", step, 0, move, "cd" * 16), step), SEED
    )
    folded = match
    for event in events:
        folded = rules.fold(folded, event)
    assert folded is not match
    assert folded.version == match.version + len(events)
    assert 0 in folded.commits
    assert 0 not in match.commits
    assert msgspec.json.encode(match) == before


def _to_sealed_step(rules: MatchEngine, match: Match) -> str:
    """Play public moves (first legal) until a sealed step; return its step id."""
    for _ in range(100):
        actions = rules.awaiting(match)
        if actions[0].action == "commit":
            return actions[0].step
        seat = actions[0].seat
        move = msgspec.to_builtins(rules.legal(match, seat)[0])
        _apply(rules, match, MakeMove(seat, move))
    raise AssertionError("no sealed step")


def _commit(rules: MatchEngine, match: Match, seat: int, step: str) -> tuple[dict[str, Any], str]:
    move = msgspec.to_builtins(rules.legal(match, seat)[0])
    salt = "cd" * 16
    _apply(rules, match, CommitSeal(seat, sealed.commitment("g1", step, seat, move, salt), step))
    return move, salt


def test_a_sealed_step_opens_reveals_only_once_every_seat_has_committed() -> None:
    rules, match = _fbi()
    step = _to_sealed_step(rules, match)
    seat0 = _commit(rules, match, 0, step)
    with pytest.raises(SealedStepRequired):
        rules.perform(match, MakeMove(1, msgspec.to_builtins(rules.legal(match, 1)[0])), SEED)
    with pytest.raises(CommitmentError):
        rules.perform(match, RevealSeal(0, *seat0), SEED)
    assert {a.seat: a.action for a in rules.awaiting(match)} == {1: "commit", 2: "commit"}
    seat1 = _commit(rules, match, 1, step)
    seat2 = _commit(rules, match, 2, step)
    assert {a.action for a in rules.awaiting(match)} == {"reveal"}
    with pytest.raises(RevealMismatch):
        rules.perform(match, RevealSeal(0, seat0[0], "ef" * 16), SEED)
    before = match.state
    _apply(rules, match, RevealSeal(0, *seat0))
    _apply(rules, match, RevealSeal(1, *seat1))
    assert match.state == before  # nothing decided before the last reveal
    _apply(rules, match, RevealSeal(2, *seat2))
    assert match.state != before
    assert all(a.step != step for a in rules.awaiting(match))


def test_a_commit_deadline_forfeits_the_choice_and_a_bot_choice_stands_in() -> None:
    rules, match = _fbi()
    step = _to_sealed_step(rules, match)
    seat0 = _commit(rules, match, 0, step)
    events = _apply(rules, match, TimeOut(1, "commit", step))
    assert events == [SealForfeited(1, step, "missed the commit deadline")]
    seat2 = _commit(rules, match, 2, step)
    # The forfeited seat counts as committed and revealed: only 0 and 2 reveal.
    assert {(a.seat, a.action) for a in rules.awaiting(match)} == {(0, "reveal"), (2, "reveal")}
    _apply(rules, match, RevealSeal(0, *seat0))
    resolved = _apply(rules, match, RevealSeal(2, *seat2))
    seats_decided = {getattr(e, "seat", None) for e in resolved}
    assert {0, 1, 2} <= seats_decided
    assert all(a.step != step for a in rules.awaiting(match))


def test_a_public_turn_deadline_plays_a_legal_move_and_says_so() -> None:
    rules, match = _fbi()
    action = rules.awaiting(match)[0]
    events = _apply(rules, match, TimeOut(action.seat, "move", action.step))
    assert events[0] == TurnTimedOut(action.seat, action.step)
    assert len(events) > 1
    with pytest.raises(WrongPhase):  # the turn has passed: a late timeout does nothing
        rules.perform(match, TimeOut(action.seat, "move", action.step), SEED)


def test_timeouts_are_deterministic_given_the_seed() -> None:
    rules, first = _fbi()
    _, second = _fbi()
    action = rules.awaiting(first)[0]
    act = TimeOut(action.seat, "move", action.step)
    assert rules.perform(first, act, SEED) == rules.perform(second, act, SEED)


def test_an_abandoned_game_awaits_nobody_refuses_every_act_and_is_abandoned_once() -> None:
    rules, match = _fbi()
    seat = rules.awaiting(match)[0].seat
    move = msgspec.to_builtins(rules.legal(match, seat)[0])
    assert _apply(rules, match, Abandon(idle_seconds=90)) == [GameAbandoned(idle_seconds=90)]
    assert match.abandoned
    assert rules.awaiting(match) == []
    assert rules.legal(match, seat) == []
    assert rules.result(match) is None  # ended without a result
    with pytest.raises(GameOver):
        rules.perform(match, MakeMove(seat, move), SEED)
    with pytest.raises(WrongPhase):
        rules.perform(match, TimeOut(seat, "move", "x"), SEED)
    assert rules.perform(match, Abandon(idle_seconds=120), SEED) == []  # once
    # Folding the stream again gives the same abandoned match.
    again = rules.replay(
        [*rules.create("g1", {}, [SeatSpec("human")] * 3, SEED), GameAbandoned(90)]
    )
    assert again.abandoned


class _Nudge(msgspec.Struct, frozen=True, tag="nudge", tag_field="kind"):
    """An act the match engine does not know (as a new act type would be, unregistered)."""

    seat: int


def test_an_act_the_engine_has_no_handler_for_is_refused_not_taken_for_another() -> None:
    rules, match = _fbi()
    with pytest.raises(TypeError, match="not an act"):
        rules.perform(match, _Nudge(0), SEED)  # type: ignore[arg-type]  # no act, on purpose


def test_every_kind_of_act_has_its_handler() -> None:
    assert set(typing.get_args(Act)) == set(ACT_HANDLERS)
