"""Bonus cards and final scores (docs/house-rules.md#fbi-bonus-cards and
docs/house-rules.md#fbi-score-ties)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from domain.engine import Outcome
from domain.fbi.cards import BONUS_VALUES, COLOURS, card
from domain.fbi.events import BonusAward
from domain.fbi.state import FbiState
from domain.kit import ranking


def colour_sums(slammer: Sequence[int]) -> dict[str, int]:
    """The sum of a slammer's cards per colour (purple cards have no colour: not counted)."""
    sums: dict[str, int] = dict.fromkeys(COLOURS, 0)
    for i in slammer:
        c = card(i)
        if c.colour != "purple":
            sums[c.colour] += c.value
    return sums


def awards_from_sums(sums: Sequence[Mapping[str, int]]) -> list[BonusAward]:
    """Each colour's bonus goes to the single highest colour sum, only if it is above 0."""
    awards: list[BonusAward] = []
    for colour in COLOURS:
        column = [seat_sums[colour] for seat_sums in sums]
        best = max(column)
        seat = column.index(best) if best > 0 and column.count(best) == 1 else None
        awards.append(BonusAward(colour=colour, value=BONUS_VALUES[colour], seat=seat))
    return awards


def bonus_awards(slammers: Sequence[Sequence[int]]) -> list[BonusAward]:
    return awards_from_sums([colour_sums(slammer) for slammer in slammers])


def slammer_total(slammer: Sequence[int]) -> int:
    """Villains add, innocents subtract, purple cards included."""
    return sum(card(i).value for i in slammer)


def scores(slammers: Sequence[Sequence[int]], awards: Sequence[BonusAward]) -> list[int]:
    return with_bonuses([slammer_total(slammer) for slammer in slammers], awards)


def with_bonuses(totals: Sequence[int], awards: Sequence[BonusAward]) -> list[int]:
    out = list(totals)
    for award in awards:
        if award.seat is not None:
            out[award.seat] += award.value
    return out


def final_scores(slammers: Sequence[Sequence[int]]) -> list[int]:
    return scores(slammers, bonus_awards(slammers))


def result(state: FbiState | None) -> Outcome | None:
    """Highest score wins; equal scores share the win and the place."""
    if state is None or state.phase != "over":
        return None
    return ranking(scores(state.slammers, state.bonuses))
