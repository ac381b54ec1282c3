"""The expert's thinking budget: a sample count scaled by effort, cut short by a clock.

Clocks here are fakes that tick a fixed amount per reading, so every count is exact and
nothing depends on how fast this machine is.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest

import domain.budget
from domain.bonnie_clyde import GAME as BONNIE_CLYDE
from domain.bonnie_clyde import bots as bonnie_clyde_bots
from domain.budget import Budget, Pacer
from domain.engine import AnyGame
from domain.fbi import GAME as FBI
from domain.fbi import bots as fbi_bots
from domain.feds import GAME as FEDS
from domain.feds import bots as feds_bots
from domain.kit import Search
from domain.match import Match, MatchEngine
from domain.rng import Rng
from tests.domain.playthrough import play


class TickingClock:
    """Reads 0, then ``step``, ``2 * step``…: one tick per reading."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.readings = 0

    def __call__(self) -> float:
        now = self.readings * self.step
        self.readings += 1
        return now


def samples_taken(pacer: Pacer, cap: int = 1000) -> int:
    done = 0
    while done < cap and pacer.another(done):
        done += 1
    return done


def test_without_seconds_the_clock_is_never_read() -> None:
    clock = TickingClock(1.0)
    assert samples_taken(Budget().pacer(4, clock), cap=50) == 50
    assert clock.readings == 1  # the start only


def test_the_minimum_is_taken_however_small_the_budget() -> None:
    assert samples_taken(Budget(seconds=0).pacer(4, TickingClock(1.0))) == 4
    assert samples_taken(Budget(seconds=0).pacer(0, TickingClock(1.0))) == 1


def test_a_sample_starts_only_if_it_should_end_inside_the_budget() -> None:
    # Start reads 0; the check before sample k+1 (k >= 4) reads k - 3 seconds, and projects
    # (k - 3) * (k + 1) / k: 9.75 s after 12 samples (go on), 10.77 s after 13 (stop).
    assert samples_taken(Budget(seconds=10).pacer(4, TickingClock(1.0))) == 13
    # Ten times the budget at a tenth of the pace per reading: the same count.
    assert samples_taken(Budget(seconds=100).pacer(4, TickingClock(10.0))) == 13


def test_effort_scales_the_tuned_count_but_not_below_the_minimum() -> None:
    assert Budget().samples(72, 4) == 72
    assert Budget(effort=0.5).samples(72, 4) == 36
    assert Budget(effort=3).samples(72, 4) == 216
    assert Budget(effort=0.01).samples(72, 4) == 4


@pytest.mark.parametrize("bad", [{"seconds": -1.0}, {"effort": 0.0}, {"effort": -2.0}])
def test_nonsense_budgets_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="budget"):
        Budget(**bad)


# ---- every game's expert honours the budget ------------------------------------------------


@dataclass
class Expert:
    game: AnyGame
    options: dict[str, Any]
    seats: int
    search: Search[Any, Any, Any]  # the game's expert: the kit's search with its parts


EXPERTS = {
    "fbi": Expert(FBI, {}, 4, fbi_bots.EXPERT),
    "feds": Expert(FEDS, {}, 4, feds_bots.EXPERT),
    "bonnie-clyde": Expert(BONNIE_CLYDE, {"target": 10}, 2, bonnie_clyde_bots.EXPERT),
}


class Found(Exception):
    def __init__(self, match: Match, seat: int, legal: list[Any]) -> None:
        self.position = (copy.deepcopy(match), seat, legal)


def first_search(expert: Expert, searches: Callable[[Match, int, list[Any]], bool]) -> Any:
    """The first decision of a seeded random game where ``searches`` holds."""

    def choose(rules: MatchEngine, match: Match, seat: int, legal: list[Any], rng: Rng) -> Any:
        if searches(match, seat, legal):
            raise Found(match, seat, legal)
        return rng.choice(legal)

    try:
        play(expert.game, expert.options, expert.seats, 7, choose)
    except Found as found:
        return found.position
    pytest.fail("no decision called for a search")


@pytest.mark.parametrize("name", list(EXPERTS))
def test_the_expert_samples_as_much_as_its_budget_allows(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    expert = EXPERTS[name]
    rules = MatchEngine(expert.game)
    calls = 0

    def counting(*args: Any) -> Any:  # one world drawn per sample
        nonlocal calls
        calls += 1
        return expert.search.determinize(*args)

    search = dataclasses.replace(expert.search, determinize=counting)
    # Each reading of the clock moves it on a second.
    monkeypatch.setattr(domain.budget, "time", SimpleNamespace(monotonic=TickingClock(1.0)))

    def samples(match: Match, seat: int, legal: list[Any], budget: Budget) -> int:
        nonlocal calls
        calls = 0
        move = search(rules.view(match, seat), seat, legal, Rng(b"budget"), budget)
        assert move in legal
        return calls

    # The first decision where the expert searches (it has more than one candidate).
    match, seat, legal = first_search(
        expert, lambda m, s, legal: samples(m, s, legal, Budget(seconds=0)) > 0
    )
    # A zero budget: the minimum.
    assert samples(match, seat, legal, Budget(seconds=0)) == expert.search.minimum
    tuned = samples(match, seat, legal, Budget())
    assert tuned > 2 * expert.search.minimum, "the position must leave room to scale"
    assert samples(match, seat, legal, Budget(effort=0.5)) == max(
        expert.search.minimum, round(tuned / 2)
    )
    assert samples(match, seat, legal, Budget(effort=2)) == 2 * tuned
    # Ten (ticking) seconds: 13 samples, as the pacer test above derives.
    assert samples(match, seat, legal, Budget(seconds=10)) == min(13, tuned)
    assert samples(match, seat, legal, Budget(seconds=10, effort=2)) == min(13, 2 * tuned)


def test_every_candidate_meets_every_sampled_world() -> None:
    worlds: list[int] = []
    played: list[tuple[int, str]] = []

    def determinize(view: Any, rng: Rng) -> int:
        worlds.append(len(worlds))
        return worlds[-1]

    def playout(world: int, seat: int, move: str, rng: Rng) -> float:
        played.append((world, move))
        return {"a": 1.0, "b": 2.0, "c": 2.0}[move]

    search = Search[Any, str, int](
        candidates=lambda view, legal: legal,
        determinize=determinize,
        playout=playout,
        samples=3,
        minimum=1,
    )
    view = SimpleNamespace(seat=0)
    assert search(view, 0, ["a", "b", "c"], Rng(b"search"), Budget()) == "b"  # first best
    assert played == [(w, m) for w in range(3) for m in "abc"]
    keeps_first = dataclasses.replace(search, keep_first_by=1.5)
    assert keeps_first(view, 0, ["a", "b", "c"], Rng(b"search"), Budget()) == "a"
