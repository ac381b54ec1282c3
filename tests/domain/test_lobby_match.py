"""The match layer's open seats and rematch: claims, leaves, fills, the start, the end."""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain import registry
from domain.errors import (
    GameNotStarted,
    GameOver,
    GameStartedAlready,
    NotAnOpenSeat,
    NotEnded,
    SeatTaken,
)
from domain.match import (
    Abort,
    ClaimSeat,
    FillSeats,
    GameStarted,
    LeaveSeat,
    MakeMove,
    Match,
    MatchEngine,
    Rematch,
    Resign,
    SeatClaimed,
    SeatSpec,
)
from domain.verify import verify
from tests.domain.test_sealed_exits import GAME_ID, Recorder

SEED = bytes(range(32))


def _table(*seats: SeatSpec) -> tuple[MatchEngine, Match]:
    game = registry.get("bonnie_clyde")
    assert game is not None
    rules = MatchEngine(game)
    return rules, rules.replay(rules.create("g1", {}, list(seats), SEED))


def _apply(rules: MatchEngine, match: Match, act: Any) -> tuple[Match, list[Any]]:
    events = rules.perform(match, act, SEED)
    for event in events:
        match = rules.fold(match, event)
    return match, events


def test_a_game_with_an_open_seat_waits_and_refuses_acts() -> None:
    rules, match = _table(SeatSpec("human", None, "Ann"), SeatSpec("open"))
    assert match.waiting
    assert match.invited == (1,)
    assert rules.awaiting(match) == []
    assert rules.legal(match, 0) == []
    with pytest.raises(GameNotStarted):
        rules.perform(match, MakeMove(0, {"type": "bc.draw_from_case_file"}), SEED)
    with pytest.raises(GameNotStarted):
        rules.perform(match, Resign(0), SEED)
    with pytest.raises(NotAnOpenSeat):
        rules.perform(match, LeaveSeat(0), SEED)
    with pytest.raises(NotAnOpenSeat):
        rules.perform(match, ClaimSeat(0, "x"), SEED)


def test_claim_leave_claim_starts_the_game() -> None:
    rules, match = _table(SeatSpec("open"), SeatSpec("open"))
    match, events = _apply(rules, match, ClaimSeat(0, "Bo", "u2"))
    assert [type(e).__name__ for e in events] == ["SeatClaimed"]
    assert match.seats[0] == SeatSpec("human", None, "Bo", "u2")
    with pytest.raises(SeatTaken):
        rules.perform(match, ClaimSeat(0, "Cy"), SEED)
    match, _ = _apply(rules, match, LeaveSeat(0))
    assert match.seats[0].type == "open"
    with pytest.raises(NotAnOpenSeat):
        rules.perform(match, LeaveSeat(0), SEED)
    match, _ = _apply(rules, match, ClaimSeat(0, "Cy"))
    match, events = _apply(rules, match, ClaimSeat(1, "Di"))
    assert isinstance(events[-1], GameStarted)
    assert not match.waiting
    assert rules.awaiting(match)
    with pytest.raises(GameStartedAlready):
        rules.perform(match, LeaveSeat(1), SEED)
    with pytest.raises(GameStartedAlready):
        rules.perform(match, FillSeats("random"), SEED)


def test_fill_gives_every_open_seat_to_a_bot() -> None:
    rules, match = _table(SeatSpec("human"), SeatSpec("open", None, "x"), SeatSpec("open"))
    match, events = _apply(rules, match, FillSeats("greedy"))
    assert [s.type for s in match.seats] == ["human", "bot", "bot"]
    assert match.seats[1].name == "x"
    assert {s.level for s in match.seats[1:]} == {"greedy"}
    assert isinstance(events[-1], GameStarted)


def test_rematch_once_after_the_end_only() -> None:
    rules, match = _table(SeatSpec("human"), SeatSpec("human"))
    assert not match.waiting
    with pytest.raises(NotEnded):
        rules.perform(match, Rematch("n" * 24), SEED)
    match, _ = _apply(rules, match, Abort())
    match, events = _apply(rules, match, Rematch("n" * 24))
    assert match.rematch == "n" * 24
    assert len(events) == 1
    assert rules.perform(match, Rematch("m" * 24), SEED) == []  # the first one stands


def test_a_game_aborted_while_waiting_has_no_rematch_and_refuses_claims() -> None:
    rules, match = _table(SeatSpec("human"), SeatSpec("open"))
    match, _ = _apply(rules, match, Abort())
    with pytest.raises(GameOver):
        rules.perform(match, ClaimSeat(1), SEED)
    with pytest.raises(GameNotStarted):
        rules.perform(match, Rematch("n" * 24), SEED)


def test_a_seat_its_creator_bound_keeps_its_player_through_claims_and_leaves() -> None:
    rules, match = _table(SeatSpec("open", None, None, "u-bob"), SeatSpec("open"))
    assert match.bound == {0: "u-bob"}
    match, events = _apply(rules, match, ClaimSeat(0, "Bo"))
    assert events == [SeatClaimed(0, "Bo", None)]
    assert match.seats[0] == SeatSpec("human", None, "Bo", "u-bob")
    match, _ = _apply(rules, match, LeaveSeat(0))
    assert match.seats[0] == SeatSpec("open", None, None, "u-bob")
    match, _ = _apply(rules, match, ClaimSeat(1, "Cy", "u-cy"))  # the API key's claim
    assert match.seats[1].external_id == "u-cy"


def test_an_old_claim_naming_another_player_folds_to_the_bound_one_and_verifies() -> None:
    # Before issue 35 an invite code's claim could name any external_id, and the stream
    # keeps the claim as it was made; it folds to the creator's player, and verifies.
    recorder = Recorder()
    seats = [
        SeatSpec("human", None, "Ann", "u-ann"),
        SeatSpec("open", None, None, "u-bob"),
        SeatSpec("human"),
    ]
    recorder.events = recorder.rules.create(GAME_ID, {}, seats, SEED)
    recorder.match = recorder.rules.replay(recorder.events)
    claimed = recorder.apply(ClaimSeat(1, "Mallory", "u-victim"))
    assert claimed[0] == SeatClaimed(1, "Mallory", "u-victim")
    assert recorder.match.seats[1] == SeatSpec("human", None, "Mallory", "u-bob")
    recorder.play_out(random.Random(35))
    assert verify(recorder.replay()).status == "finished"
    assert recorder.rules.replay(recorder.events).seats[1].external_id == "u-bob"
