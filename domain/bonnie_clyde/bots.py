"""Bonnie and Clyde's bots. Each sees only its seat's view and the legal list.

- ``random``: any legal move.
- ``greedy``: a sensible casual player (`domain.bonnie_clyde.greedy`).
- ``expert``: the kit's search (`domain.kit.Search`). For each decision with a real
  choice it samples complete tables consistent with its own view
  (`domain.bonnie_clyde.determinize`), plays each candidate move in each sample, lets
  every player continue with the greedy policy to the end of the hand, and picks the move
  with the best average margin over the strongest opponent. The budget keeps a move
  around one second on one core in the worst case.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.bonnie_clyde import greedy, rules
from domain.bonnie_clyde.cards import card_order
from domain.bonnie_clyde.commands import BonnieClydeCommand, Discard, LayOff, Meld, TedHintonLook
from domain.bonnie_clyde.determinize import determinize
from domain.bonnie_clyde.events import HandEnding
from domain.bonnie_clyde.greedy import card_value, perspective_of_state
from domain.bonnie_clyde.scoring import score_hand
from domain.bonnie_clyde.state import BonnieClydeState
from domain.bonnie_clyde.views import BonnieClydeView
from domain.kit import Bots, Search
from domain.rng import Rng

SIMULATIONS_PER_MOVE = 160
MAX_CANDIDATES = 6
MIN_SAMPLES = 4
# An alternative must beat the greedy choice by this average margin (points) to be
# preferred: with few samples, small differences are mostly noise.
DEVIATION_MARGIN = 1.0
MAX_SIMULATED_DECISIONS = 1500


def candidates(
    view: BonnieClydeView, legal: Sequence[BonnieClydeCommand]
) -> list[BonnieClydeCommand]:
    """The greedy choice first, then the most plausible alternatives: every meld and
    layoff at its largest size and one card at a time, each Ted Hinton choice (looks
    only where this seat has not looked), and the discards the greedy player values
    least."""
    p = greedy.perspective_of_view(view)
    first = greedy.best_move(p, legal)
    largest: dict[tuple[bool, int], Meld | LayOff] = {}
    others: list[BonnieClydeCommand] = []
    discards: list[Discard] = []
    for move in legal:
        if move == first:
            continue
        if isinstance(move, Meld | LayOff):
            key = (isinstance(move, Meld), move.location)
            if key not in largest or move.count > largest[key].count:
                largest[key] = move
            if isinstance(move, LayOff) and move.count == 1:
                others.append(move)
        elif isinstance(move, Discard):
            discards.append(move)
        elif isinstance(move, TedHintonLook):
            if p.seen[move.location - 1] is None:
                others.append(move)
        else:
            others.append(move)
    discards.sort(key=lambda m: (card_value(p, m.card), card_order(m.card)))
    ranked = [*largest.values(), *others, *discards]
    unique = list(dict.fromkeys(ranked))
    return [first, *unique[: MAX_CANDIDATES - 1]]


def playout(world: BonnieClydeState, seat: int, move: BonnieClydeCommand, rng: Rng) -> float:
    """Play ``move`` then greedy play to the end of the hand; ``seat``'s resulting margin."""
    me = seat
    state = world
    for _ in range(MAX_SIMULATED_DECISIONS):
        if isinstance(move, Discard) and (len(state.hands[seat]) == 1 or not state.case_file):
            ending: HandEnding = "went_out" if len(state.hands[seat]) == 1 else "case_file_ran_out"
            totals = score_hand(state, ending, seat).totals
            return float(totals[me] - max(t for s, t in enumerate(totals) if s != me))
        state = rules.apply(state, seat, move, rng)[1]
        seat = state.turn_seat
        move = greedy.best_move(perspective_of_state(state, seat), rules.legal(state, seat))
    return 0.0


EXPERT = Search[BonnieClydeView, BonnieClydeCommand, BonnieClydeState](
    candidates=candidates,
    determinize=determinize,
    playout=playout,
    samples=SIMULATIONS_PER_MOVE,
    minimum=MIN_SAMPLES,
    shared=True,
    keep_first_by=DEVIATION_MARGIN,
)

BOTS = Bots[BonnieClydeView, BonnieClydeCommand](greedy=greedy.choose, expert=EXPERT)
