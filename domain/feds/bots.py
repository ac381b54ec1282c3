"""The Feds' bots. Each sees only its seat's view and the legal list.

- ``random``: a uniformly random legal move.
- ``greedy``: the move that maximises the projected final margin (`domain.feds.greedy`).
- ``expert``: the kit's search (`domain.kit.Search`). The candidates (greedy's best few)
  are each tried in a number of sampled worlds consistent with the view
  (`domain.feds.determinize`), played out to the end (random choices and powers, arrests
  that add most to the arresting jail); the best average final margin wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.feds import greedy, rules
from domain.feds.cards import COLOURS
from domain.feds.commands import ArrestColour, ArrestCriminals, FedsCommand
from domain.feds.determinize import determinize
from domain.feds.projection import counts_of, points
from domain.feds.scoring import final_scores
from domain.feds.state import FedsState
from domain.feds.views import FedsView
from domain.kit import Bots, Search
from domain.rng import Rng

#: The expert tries at most this many candidates…
EXPERT_CANDIDATES = 6
#: …each in this many sampled worlds, played out at random to the end (~1 s on one core)…
EXPERT_WORLDS = 40
#: …and, however short the time budget, in at least this many.
EXPERT_MIN_WORLDS = 4


def candidates(view: FedsView, legal: Sequence[FedsCommand]) -> Sequence[FedsCommand]:
    """Greedy's best few."""
    return greedy.ranked(view, legal)[:EXPERT_CANDIDATES]


def playout(world: FedsState, seat: int, move: FedsCommand, rng: Rng) -> float:
    """Play ``move``, then the game to its end; ``seat``'s final margin."""
    _, state = rules.apply(world, seat, move, rng)
    return _margin(final_scores(_play_out(state, rng)), seat)


def _play_out(state: FedsState, rng: Rng) -> FedsState:
    """Play to the end: random choices and powers, but every arrest takes what adds most to
    the arresting jail (random arrests would make the bust, where the points are, noise)."""
    while state.phase != "over":
        seat = rules.pending(state)[0].seat
        legal = rules.legal(state, seat)
        move = legal[0]
        if isinstance(move, ArrestColour | ArrestCriminals):
            move = _best_arrest(state, seat, legal)
        else:
            move = rng.choice(legal)
        _, state = rules.apply(state, seat, move, rng)
    return state


def _best_arrest(state: FedsState, seat: int, legal: list[Any]) -> Any:
    jail = counts_of(state.jails[seat])
    now = points(jail)
    index = state.bust_location if state.phase == "bust" else state.siren_location
    here = state.locations[index].criminals if index is not None else None
    best, best_gain = legal[0], -1
    for move in legal:
        taken = [0] * len(COLOURS)
        if isinstance(move, ArrestColour) and here is not None:
            taken[COLOURS.index(move.colour)] = here.of(move.colour)
        elif isinstance(move, ArrestCriminals):
            for colour in move.colours:
                taken[COLOURS.index(colour)] = 1
        gain = points([a + b for a, b in zip(jail, taken, strict=True)]) - now
        if gain > best_gain:
            best, best_gain = move, gain
    return best


def _margin(scores: list[int], me: int) -> float:
    others = [s for seat, s in enumerate(scores) if seat != me]
    return scores[me] - sum(others) / len(others)


EXPERT = Search[FedsView, FedsCommand, FedsState](
    candidates=candidates,
    determinize=determinize,
    playout=playout,
    samples=EXPERT_WORLDS,
    minimum=EXPERT_MIN_WORLDS,
)

BOTS = Bots[FedsView, FedsCommand](greedy=greedy.choose, expert=EXPERT)
