"""FBI bots. They see only their seat's view and the legal list.

- ``random``: any legal move.
- ``greedy``: a one-move lookahead on the score margin (`domain.fbi.greedy`).
- ``expert``: the kit's search (`domain.kit.Search`). Each world shuffles the unseen
  characters into a deck and deals every other seat unplayed agents consistent with what
  is public (`domain.fbi.determinize`). Each candidate (every legal move, or greedy's best
  few when there are many) is played out in the same worlds, everyone then playing greedy
  (the others' sealed agents included) to the end of the next turn, and the move with the
  best total margin is chosen. About 0.1-0.3 s per move on one core.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.fbi import greedy, rules
from domain.fbi.commands import FbiCommand
from domain.fbi.determinize import determinize, state_from_view, unseen_characters
from domain.fbi.state import FbiState
from domain.fbi.views import FbiView
from domain.kit import Bots, Search
from domain.rng import Rng

# Expert search budget: playouts per decision, shared among the candidate moves (at least
# EXPERT_MIN_SAMPLES each); only greedy's EXPERT_CANDIDATES best moves are played out (agent
# selection offers up to 15 pairs); a playout is scored EXPERT_EXTRA_TURNS after this turn.
EXPERT_PLAYOUTS = 72
EXPERT_MIN_SAMPLES = 4
EXPERT_CANDIDATES = 6
EXPERT_EXTRA_TURNS = 1


def candidates(view: FbiView, legal: Sequence[FbiCommand]) -> Sequence[FbiCommand]:
    """Every legal move, or greedy's best few when there are more (in greedy's order)."""
    if len(legal) <= EXPERT_CANDIDATES or view.seat is None:
        return legal
    here = state_from_view(view, unseen_characters(view))
    return greedy.ranked(here, view.seat, legal)[:EXPERT_CANDIDATES]


def playout(state: FbiState, seat: int, move: FbiCommand, rng: Rng) -> float:
    """Play ``move`` then greedy moves for everyone; the margin at the horizon."""
    last_turn = state.turn + EXPERT_EXTRA_TURNS
    state = rules.apply(state, seat, move, rng)[1]
    while state.phase != "over" and state.turn <= last_turn:
        actor = rules.pending(state)[0].seat
        choice = greedy.best_move(state, actor, rules.legal(state, actor))
        state = rules.apply(state, actor, choice, rng)[1]
    return greedy.margin(state.slammers, seat)


#: The expert: FBI's worlds come from the move's stream in turn, as its stored games were
#: played; FBI draws nothing after setup, so its playouts use no randomness.
EXPERT = Search[FbiView, FbiCommand, FbiState](
    candidates=candidates,
    determinize=determinize,
    playout=playout,
    samples=EXPERT_PLAYOUTS,
    minimum=EXPERT_MIN_SAMPLES,
    shared=True,
    fork_worlds=False,
)

BOTS = Bots[FbiView, FbiCommand](greedy=greedy.choose, expert=EXPERT)
