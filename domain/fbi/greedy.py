"""FBI's greedy policy: a one-move lookahead on the score margin.

The margin is the seat's own final score, bonuses counted as if the game ended now, minus
the best other score. Greedy releases the card whose loss helps most (an innocent),
selects the agent pair that would arrest the most valuable characters if nobody else took
them, and arrests with the agent worth most right now. It reads nothing of the other
seats' agents: its valuation assumes nobody else arrests.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.fbi import scoring
from domain.fbi.cards import Colour, card
from domain.fbi.commands import FbiCommand, Release, ReleaseNone, SelectAgents
from domain.fbi.determinize import state_from_view, unseen_characters
from domain.fbi.evolve import agents_in_play
from domain.fbi.rules import arrest_target
from domain.fbi.state import FbiState
from domain.fbi.views import FbiView


def choose(view: FbiView, legal: Sequence[FbiCommand]) -> FbiCommand:
    """The greedy bot's move: the best of ``legal`` for the viewing seat."""
    if view.seat is None:
        raise ValueError("a bot plays a seat")
    return best_move(state_from_view(view, unseen_characters(view)), view.seat, legal)


def best_move(state: FbiState, seat: int, legal: Sequence[FbiCommand]) -> FbiCommand:
    """The move of ``legal`` with the best margin for ``seat`` (the first among equals)."""
    margins = _Margins(state, seat)
    best = legal[0]
    best_value = _value(state, seat, best, margins)
    for move in legal[1:]:
        value = _value(state, seat, move, margins)
        if value > best_value:
            best, best_value = move, value
    return best


def ranked(state: FbiState, seat: int, legal: Sequence[FbiCommand]) -> list[FbiCommand]:
    """``legal`` best first by the greedy valuation (stable among equals)."""
    margins = _Margins(state, seat)
    return sorted(legal, key=lambda m: -_value(state, seat, m, margins))


def margin(slammers: Sequence[Sequence[int]], seat: int) -> int:
    """Own score minus the best other score, bonuses awarded as if the game ended now."""
    totals = scoring.final_scores(slammers)
    return totals[seat] - max(t for other, t in enumerate(totals) if other != seat)


class _Margins:
    """``margin`` for one seat's candidate slammers, the other slammers tallied once."""

    def __init__(self, state: FbiState, seat: int) -> None:
        self.seat = seat
        self.sums = [scoring.colour_sums(slammer) for slammer in state.slammers]
        self.totals = [scoring.slammer_total(slammer) for slammer in state.slammers]

    def of(self, mine: Sequence[int]) -> int:
        sums = list(self.sums)
        sums[self.seat] = scoring.colour_sums(mine)
        totals = list(self.totals)
        totals[self.seat] = scoring.slammer_total(mine)
        final = scoring.with_bonuses(totals, scoring.awards_from_sums(sums))
        return final[self.seat] - max(t for other, t in enumerate(final) if other != self.seat)


def _after_arrests(state: FbiState, seat: int, colours: Sequence[Colour]) -> list[int]:
    """``seat``'s slammer after it uses ``colours`` in turn, nobody else arresting."""
    table = list(state.table)
    mine = list(state.slammers[seat])
    for colour in colours:
        target = arrest_target(table, colour, state.variant)
        if target is not None:
            table.remove(target)
            mine.append(target)
    return mine


def _value(state: FbiState, seat: int, move: FbiCommand, margins: _Margins) -> int:
    if isinstance(move, Release):
        mine = [i for i in state.slammers[seat] if i != move.card_id]
        # Equal margins: the coloured innocent goes first (it can only raise a colour sum).
        return 2 * margins.of(mine) + (card(move.card_id).colour != "purple")
    if isinstance(move, ReleaseNone):
        return 2 * margins.of(state.slammers[seat])
    if isinstance(move, SelectAgents):
        colours = agents_in_play(move.first, move.second)
        return margins.of(_after_arrests(state, seat, colours))
    return margins.of(_after_arrests(state, seat, [move.colour]))
