"""Hand and game scoring (docs/house-rules.md#bonnie_clyde-car-bonus,
docs/house-rules.md#bonnie_clyde-shut-out, docs/house-rules.md#bonnie_clyde-tie-at-the-target)."""

from __future__ import annotations

from domain.bonnie_clyde.cards import (
    BONNIE,
    CLYDE,
    POINTS_PER_EVIDENCE,
    POINTS_PER_FUGITIVE,
    POINTS_PER_SIDEWAYS_EVIDENCE,
)
from domain.bonnie_clyde.events import HandEnding, HandScored
from domain.bonnie_clyde.state import BonnieClydeState
from domain.engine import Outcome
from domain.kit import ranking


def table_points(state: BonnieClydeState, seat: int) -> int:
    """What is in front of ``seat``: 2 per evidence card, 4 if sideways, 10 per fugitive."""
    points = 0
    for played in state.tables[seat]:
        per_card = POINTS_PER_SIDEWAYS_EVIDENCE if played.sideways else POINTS_PER_EVIDENCE
        points += per_card * played.count
    return points + POINTS_PER_FUGITIVE * len(state.fugitives[seat])


def score_hand(state: BonnieClydeState, ending: HandEnding, ended_by_seat: int) -> HandScored:
    """Cards left in hands count nothing. Only a player who went out earns the car's
    position as a bonus. The player who ended the hand, by going out or by drawing the
    Case File's last card, shuts every other player out (they score 0 for the hand) when
    both Bonnie and Clyde are in front of them (rulebook: "if you ended the hand and you
    have both Bonnie and Clyde"; docs/house-rules.md#bonnie_clyde-shut-out)."""
    scores = [table_points(state, seat) for seat in range(state.seats)]
    bonus = 0
    if ending == "went_out":
        bonus = state.car
        scores[ended_by_seat] += bonus
    captured = state.fugitives[ended_by_seat]
    shut_out = BONNIE in captured and CLYDE in captured
    if shut_out:
        scores = [s if seat == ended_by_seat else 0 for seat, s in enumerate(scores)]
    return HandScored(
        hand_number=state.hand_number,
        ending=ending,
        ended_by_seat=ended_by_seat,
        car=state.car,
        bonus=bonus,
        shut_out=shut_out,
        hand_scores=scores,
        totals=[t + s for t, s in zip(state.totals, scores, strict=True)],
    )


def sole_leader_at_target(totals: list[int], target: int) -> int | None:
    """The winner once a hand is over, if any. Decided: when several share the highest
    total at or above the target, another hand is played
    (docs/house-rules.md#bonnie_clyde-tie-at-the-target)."""
    best = max(totals)
    if best < target or totals.count(best) > 1:
        return None
    return totals.index(best)


def result(state: BonnieClydeState | None) -> Outcome | None:
    """The `Outcome` once the game is over, else None."""
    if state is None or not state.over:
        return None
    return ranking(state.totals)
