"""FBI bots: legal moves only, no peeking, and greedy clearly beats random."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain.budget import Budget
from domain.engine import BotLevel
from domain.fbi import GAME
from domain.fbi.commands import Release, ReleaseNone, SelectAgents, UseAgent
from domain.fbi.determinize import agent_options, sample_agents
from domain.fbi.state import FbiState
from domain.match import Match, MatchEngine, SeatSpec
from domain.rng import Rng
from tests.domain.fbi_helpers import (
    Deal,
    agents_it_may_hold,
    build,
    positions_with_hidden_agents,
    with_agents,
)
from tests.domain.playthrough import play


def bots(levels: list[BotLevel]) -> Any:
    def chooser(rules: MatchEngine, match: Match, seat: int, legal: list[Any], rng: Rng) -> Any:
        move = GAME.bot_move(levels[seat], GAME.view(match.state, seat), legal, rng)
        assert move in legal
        return move

    return chooser


def sample_positions(seats: int, seed: int) -> list[FbiState]:
    """A few positions of each phase where a random game awaited a decision."""
    positions: dict[str, list[FbiState]] = {}

    def record(rules: MatchEngine, match: Match, seat: int, legal: list[Any], rng: Rng) -> Any:
        positions.setdefault(match.state.phase, []).append(match.state)
        return rng.choice(legal)

    play(GAME, {"variant": "stacked" if seed % 2 else "base"}, seats, seed, chooser=record)
    return [s for states in positions.values() for s in states[1 :: max(1, len(states) // 3)]]


@pytest.mark.parametrize("level", ["random", "greedy"])
@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_bots_play_whole_games_with_legal_moves_only(level: BotLevel, seats: int) -> None:
    for seed in range(3):
        match, _ = play(GAME, {"variant": "base"}, seats, seed, chooser=bots([level] * seats))
        assert GAME.result(match.state) is not None


@pytest.mark.parametrize("seats", [2, 5])
def test_the_expert_bot_picks_a_legal_move_in_every_phase(seats: int) -> None:
    positions = sample_positions(seats, seed=seats)
    assert {s.phase for s in positions} == {"release", "agents", "arrest"}
    for state in positions:
        seat = GAME.pending(state)[0].seat
        legal = GAME.legal(state, seat)
        move = GAME.bot_move("expert", GAME.view(state, seat), legal, Rng(b"expert"))
        assert move in legal


@pytest.mark.parametrize("level", ["greedy", "expert"])
def test_a_bot_cannot_peek_at_the_deck_order(level: BotLevel) -> None:
    for state in sample_positions(3, seed=11)[::2]:
        seat = GAME.pending(state)[0].seat
        legal = GAME.legal(state, seat)
        reordered = msgspec.structs.replace(state, deck=state.deck[::-1])
        moves = [
            GAME.bot_move(level, GAME.view(s, seat), legal, Rng(b"same"))
            for s in (state, reordered)
        ]
        assert moves[0] == moves[1]


@pytest.mark.parametrize("level", ["greedy", "expert"])
def test_a_bots_choice_does_not_depend_on_the_agents_other_seats_still_hold(
    level: BotLevel,
) -> None:
    rules = MatchEngine(GAME)
    budget = Budget(effort=0.25)  # fewer samples: the same question, answered sooner
    pick = Rng(b"other agents")
    changed = 0
    for state, selecting in positions_with_hidden_agents(4, seed=21)[::6]:
        seat = GAME.pending(state)[0].seat
        match = Match(game_id="g", seats=[SeatSpec("bot", level)] * 4, options={}, state=state)
        chosen = rules.bot_move(match, seat, level, Rng(b"same"), budget)
        for _ in range(2):
            # Every other seat holds some other agents it may hold, as far as the table knows.
            other_state = state
            for owner in range(4):
                if owner != seat:
                    held = pick.choice(agents_it_may_hold(state, selecting, owner))
                    other_state = with_agents(other_state, owner, held)
            changed += other_state != state
            other = msgspec.structs.replace(match, state=other_state)
            assert rules.view(other, seat) == rules.view(match, seat)
            assert rules.bot_move(other, seat, level, Rng(b"same"), budget) == chosen
    assert changed > 0


@pytest.mark.parametrize(("seats", "seed"), [(2, 4), (3, 6), (4, 8), (5, 10)])
def test_the_expert_considers_exactly_the_agents_a_seat_may_still_hold(
    seats: int, seed: int
) -> None:
    for state, selecting in positions_with_hidden_agents(seats, seed, variant="stacked"):
        for viewer in [None, *range(seats)]:
            options = agent_options(GAME.view(state, viewer))
            for owner in range(seats):
                if owner == viewer:
                    assert options[owner] == [state.agents[owner]]
                else:
                    expected = agents_it_may_hold(state, selecting, owner)
                    assert sorted(options[owner]) == sorted(expected)
                    assert state.agents[owner] in options[owner]


def test_the_expert_samples_every_agent_pair_a_seat_may_hold() -> None:
    deal = Deal()
    table = [deal.char("red", 5), deal.char("blue", -1), deal.char("green", 2)]
    state = build(
        2,
        deal=deal,
        phase="arrest",
        table=table,
        arrest_order=[0, 1],
        agents=[["red", "green"], ["blue", "blue"]],
    )
    options = agent_options(GAME.view(state, 0))
    rng = Rng(b"samples")
    seen = {tuple(sample_agents(options, rng)[1]) for _ in range(200)}
    # Any two of red, blue, green, or 2x with one of them: six pairs.
    assert seen == {
        ("red", "blue"),
        ("red", "green"),
        ("blue", "green"),
        ("red", "red"),
        ("blue", "blue"),
        ("green", "green"),
    }
    assert all(sample_agents(options, rng)[0] == ["red", "green"] for _ in range(10))


def test_greedy_releases_its_worst_innocent() -> None:
    deal = Deal()
    worst = deal.purple(-3)
    slammer = [deal.purple(3), worst, deal.char("red", -1), deal.char("blue", 4)]
    state = build(3, deal=deal, slammers=[slammer, [deal.purple(1)], [deal.purple(2)]])
    move = GAME.bot_move("greedy", GAME.view(state, 0), GAME.legal(state, 0), Rng(b"g"))
    assert move == Release(card_id=worst)


def test_greedy_keeps_its_villains_when_it_holds_no_innocent() -> None:
    deal = Deal()
    state = build(2, deal=deal, slammers=[[deal.purple(2)], [deal.purple(1)]])
    move = GAME.bot_move("greedy", GAME.view(state, 0), GAME.legal(state, 0), Rng(b"g"))
    assert move == ReleaseNone()


def test_greedy_selects_the_agents_that_catch_the_best_villains() -> None:
    deal = Deal()
    table = [
        deal.char("red", 5),
        deal.char("red", 4),
        deal.char("blue", -1),
        deal.char("green", -4),
    ]
    state = build(2, deal=deal, phase="agents", table=table, arrest_order=[0, 1])
    move = GAME.bot_move("greedy", GAME.view(state, 0), GAME.legal(state, 0), Rng(b"g"))
    assert move == SelectAgents(first="red", second="2x")


def test_greedy_counts_the_bonus_cards_it_would_win() -> None:
    deal = Deal()
    # Red 5 + red 4 is 9 (+ red bonus 5 = 14); red 5 + blue 3 is 8 (+ red 5 + blue 3 = 16).
    table = [deal.char("red", 5), deal.char("red", 4), deal.char("blue", 3)]
    state = build(2, deal=deal, phase="agents", table=table, arrest_order=[0, 1])
    move = GAME.bot_move("greedy", GAME.view(state, 0), GAME.legal(state, 0), Rng(b"g"))
    assert move == SelectAgents(first="red", second="blue")


def test_greedy_arrests_a_villain_rather_than_an_innocent() -> None:
    deal = Deal()
    table = [deal.char("blue", -4), deal.char("red", 2)]
    state = build(
        2,
        deal=deal,
        phase="arrest",
        table=table,
        arrest_order=[0, 1],
        agents=[["blue", "red"], ["red", "red"]],
    )
    for level in ("greedy", "expert"):
        move = GAME.bot_move(level, GAME.view(state, 0), GAME.legal(state, 0), Rng(b"g"))
        assert move == UseAgent(colour="red")


def win_share(levels: list[BotLevel], games: int, champion: BotLevel) -> float:
    """The share of wins (ties split) going to ``champion`` seats, seats rotated per game."""
    wins = 0.0
    for seed in range(games):
        rotated = levels[seed % len(levels) :] + levels[: seed % len(levels)]
        variant = "stacked" if seed % 2 else "base"
        match, _ = play(GAME, {"variant": variant}, len(levels), 1000 + seed, bots(rotated))
        outcome = GAME.result(match.state)
        assert outcome is not None
        for seat in outcome.winners:
            wins += (rotated[seat] == champion) / len(outcome.winners)
    return wins / games


@pytest.mark.parametrize("levels", [["greedy", "random"], ["greedy", "random", "greedy", "random"]])
def test_greedy_beats_random_clearly(levels: list[BotLevel]) -> None:
    # Half the seats are greedy: an even match would give them about half the wins.
    assert win_share(levels, games=30, champion="greedy") >= 0.8
