"""Final score: the score table with grays placed where they help most, plus utility tokens;
ranking ties broken by the highest utility token, then most criminals, then shared."""

from __future__ import annotations

from itertools import combinations_with_replacement

from domain.engine import Outcome
from domain.feds.cards import SCORE_TABLE, SCORED_COLOURS, Colour, Criminals
from domain.feds.state import FedsState
from domain.kit import ranking


def colour_points(colour: Colour, count: int) -> int:
    if count <= 0:
        return 0
    table = SCORE_TABLE[colour]
    return table[min(count, len(table)) - 1]


def jail_points(jail: Criminals) -> int:
    """The jail's points with every gray counted as the colour that maximises the total."""
    best = 0
    for wild in combinations_with_replacement(SCORED_COLOURS, jail.gray):
        points = sum(colour_points(c, jail.of(c) + wild.count(c)) for c in SCORED_COLOURS)
        best = max(best, points)
    return best


def final_scores(state: FedsState) -> list[int]:
    return [
        jail_points(state.jails[seat]) + sum(state.utility_tokens[seat])
        for seat in range(state.seats)
    ]


def standing(state: FedsState) -> Outcome:
    """The scores and places as the jails and tokens stand (the game's end announces them).
    Ties are broken by the highest utility token, then the most criminals, then shared."""
    tie_breaks = [
        (max(state.utility_tokens[seat], default=0), state.jails[seat].total())
        for seat in range(state.seats)
    ]
    return ranking(final_scores(state), tie_breaks)


def result(state: FedsState | None) -> Outcome | None:
    """The `Outcome` once the game is over, else None."""
    if state is None or state.phase != "over":
        return None
    return standing(state)
