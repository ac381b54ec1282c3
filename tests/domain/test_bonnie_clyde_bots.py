"""Bonnie and Clyde bots: legal moves only, from the seat's view only; greedy beats random."""

from __future__ import annotations

from typing import Any

import pytest

from domain.bonnie_clyde import GAME, greedy
from domain.bonnie_clyde.cards import BONNIE, Card
from domain.bonnie_clyde.commands import (
    Discard,
    DrawFromCaseFile,
    DrawFromFiles,
    LayOff,
    LeaveHiddenCard,
    Meld,
    MoveCar,
    TakeHiddenCard,
    TedHintonSearchFiles,
)
from domain.bonnie_clyde.determinize import determinize
from domain.budget import Budget
from domain.engine import BotLevel
from domain.match import Match, MatchEngine
from domain.rng import Rng
from tests.domain.bonnie_clyde_helpers import TED, act, ev, melds, playing, table
from tests.domain.playthrough import play


def _levels_chooser(levels: list[BotLevel]) -> Any:
    def choose(rules: MatchEngine, match: Match, seat: int, legal: list[Any], rng: Rng) -> Any:
        return rules.bot_move(match, seat, levels[seat], rng)

    return choose


def _wins(levels: list[BotLevel], games: int, target: int, seed0: int) -> list[int]:
    """Wins per level, the levels rotating over the seats from game to game."""
    wins = [0] * len(levels)
    for n in range(games):
        shift = n % len(levels)
        seated = levels[shift:] + levels[:shift]
        match, _ = play(GAME, {"target": target}, len(levels), seed0 + n, _levels_chooser(seated))
        outcome = GAME.result(match.state)
        assert outcome is not None
        for winner in outcome.winners:
            wins[(winner + shift) % len(levels)] += 1
    return wins


@pytest.mark.parametrize("level", ["random", "greedy"])
def test_random_and_greedy_bots_only_make_legal_moves(level: BotLevel) -> None:
    for seats in (2, 3, 4):

        def choose(rules: MatchEngine, match: Match, seat: int, legal: list[Any], rng: Rng) -> Any:
            move = rules.bot_move(match, seat, level, rng)
            assert move in legal
            return move

        match, _ = play(GAME, {"target": 30}, seats, seats, choose)
        assert GAME.result(match.state) is not None


def test_the_expert_bot_only_makes_legal_moves() -> None:
    calls = 0

    def choose(rules: MatchEngine, match: Match, seat: int, legal: list[Any], rng: Rng) -> Any:
        nonlocal calls
        view = GAME.view(match.state, seat)
        if seat == 0:
            calls += 1
            # the full budget for a few decisions, the minimum for the rest (speed)
            if calls <= 3 and len(legal) > 2:
                move = GAME.bot_move("expert", view, legal, rng)
            else:
                move = GAME.bot_move("expert", view, legal, rng, Budget(effort=0.01))
        else:
            move = greedy.choose(view, legal)
        assert move in legal
        return move

    for seats in (2, 4):
        play(GAME, {"target": 10}, seats, 70 + seats, choose)
    assert calls > 20


def test_the_experts_sampled_tables_agree_with_everything_its_view_shows() -> None:
    def choose(rules: MatchEngine, match: Match, seat: int, legal: list[Any], rng: Rng) -> Any:
        view = GAME.view(match.state, seat)
        world = determinize(view, rng.fork("world"))
        assert GAME.view(world, seat) == view
        assert GAME.legal(world, seat) == legal
        return rng.choice(legal)

    for seats in (2, 3, 4):
        play(GAME, {"target": 10}, seats, 90 + seats, choose)


def test_greedy_beats_random_clearly() -> None:
    greedy_wins, random_wins = _wins(["greedy", "random"], 24, 30, 300)
    assert greedy_wins >= 20
    assert greedy_wins > 3 * random_wins
    wins = _wins(["greedy", "random", "random"], 18, 30, 400)
    assert wins[0] >= 12


def test_greedy_self_play_always_finishes() -> None:
    for seats in (2, 3, 4):
        for seed in range(8):
            match, _ = play(
                GAME, {"target": 100}, seats, 500 + seed, _levels_chooser(["greedy"] * seats)
            )
            assert GAME.result(match.state) is not None


def test_greedy_melds_at_the_car_first_for_the_sideways_points() -> None:
    hand = [ev(2), ev(2), ev(2), ev(5), ev(5), ev(5), ev(9)]
    state = playing(table([hand, [ev(1)]], under={2: None, 5: None}), car=5)
    assert greedy.choose(GAME.view(state, 0), GAME.legal(state, 0)) == Meld(5, 3)


def test_greedy_lays_off_what_it_can() -> None:
    state = playing(table([[ev(3), ev(8)], [ev(1)]]), tables=[[], melds((3, 3))])
    assert greedy.choose(GAME.view(state, 0), GAME.legal(state, 0)) == LayOff(3, 1)


def test_greedy_takes_the_files_top_only_when_it_can_play_it_at_once() -> None:
    state = table([[ev(3), ev(3), ev(8)], [ev(1)]], files=[ev(3)])
    assert greedy.choose(GAME.view(state, 0), GAME.legal(state, 0)) == DrawFromFiles()
    state = table([[ev(3), ev(8)], [ev(1)]], files=[ev(3)])
    assert greedy.choose(GAME.view(state, 0), GAME.legal(state, 0)) == DrawFromCaseFile()


def test_greedy_steers_the_car_towards_a_fugitive_it_has_seen() -> None:
    state = table([[ev(3), ev(1)], [ev(2)]], under={3: None, 4: BONNIE})
    seen: list[list[Card | None]] = [[None] * 10, [None] * 10]
    seen[0][3] = BONNIE
    state = playing(state, tables=[[], melds((3, 3))], car=6, seen=seen)
    state, _ = act(state, 0, LayOff(3, 1))
    assert greedy.choose(GAME.view(state, 0), GAME.legal(state, 0)) == MoveCar("down")


def test_greedy_keeps_a_useful_card_it_finds_and_leaves_a_useless_one() -> None:
    hand = [ev(4), ev(4), ev(4), ev(7), ev(7)]
    state = playing(table([hand, [ev(1)]], under={4: ev(7)}), car=2)
    state, _ = act(state, 0, Meld(4, 3))
    assert greedy.choose(GAME.view(state, 0), GAME.legal(state, 0)) == TakeHiddenCard()
    state = playing(table([hand, [ev(1)]], under={4: ev(9)}), car=2)
    state, _ = act(state, 0, Meld(4, 3))
    assert greedy.choose(GAME.view(state, 0), GAME.legal(state, 0)) == LeaveHiddenCard()


def _lone_ted_hinton() -> Any:
    """Seat 0, after its draw, holds a Ted Hinton as its last card (every card of the deck
    accounted for, so the expert can sample the rest)."""
    state = table([[TED], [ev(2), ev(3)]], under={6: ev(9)}, files=[ev(5), ev(7)])
    return playing(state, seat=0)


def test_greedy_goes_out_with_a_lone_ted_hinton() -> None:
    state = _lone_ted_hinton()
    legal = GAME.legal(state, 0)
    assert len(legal) == 3  # draw two, search the Files, or discard it
    assert greedy.choose(GAME.view(state, 0), legal) == Discard(TED)


def test_the_expert_samples_and_decides_with_a_lone_ted_hinton_and_an_empty_hand() -> None:
    state = _lone_ted_hinton()
    searching, _ = act(state, 0, TedHintonSearchFiles())
    assert searching.hands[0] == []
    for position in (state, searching):
        view = GAME.view(position, 0)
        legal = GAME.legal(position, 0)
        for n in range(4):
            world = determinize(view, Rng(b"lone-ted", f"world{n}"))
            assert GAME.view(world, 0) == view
            assert GAME.legal(world, 0) == legal
        move = GAME.bot_move("expert", view, legal, Rng(b"lone-ted", "move"), Budget(effort=0.05))
        assert move in legal
