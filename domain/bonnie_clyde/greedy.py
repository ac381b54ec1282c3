"""Bonnie and Clyde's greedy policy: a sensible casual player.

It works on a `Perspective`: what one seat knows. It is built from the seat's view for a
real bot, or from the full state inside the expert's playouts (where every simulated
player is a greedy player knowing its own cards).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from domain.bonnie_clyde.cards import (
    EVIDENCE_PER_LOCATION,
    FUGITIVES,
    LAST_LOCATION,
    MELD_MINIMUM,
    TED_HINTON,
    Card,
    card_order,
)
from domain.bonnie_clyde.commands import (
    BonnieClydeCommand,
    Discard,
    DrawFromCaseFile,
    DrawFromFiles,
    LayOff,
    LeaveHiddenCard,
    Meld,
    MoveCar,
    TakeFromFiles,
    TakeHiddenCard,
    TedHintonDrawTwo,
    TedHintonSearchFiles,
)
from domain.bonnie_clyde.state import BonnieClydeState, Phase, phase
from domain.bonnie_clyde.views import BonnieClydeView


class Perspective(NamedTuple):
    phase: Phase
    hand: list[Card]
    car: int
    files_top: Card | None
    files_cards: list[Card] | None
    looking_at: Card | None
    melded: set[int]
    in_front: Counter[int]
    seen: list[Card | None]
    case_file_size: int


def perspective_of_view(view: BonnieClydeView) -> Perspective:
    in_front: Counter[int] = Counter()
    melded: set[int] = set()
    for table in view.tables:
        for played in table.sets:
            in_front[played.location] += played.count
            if played.kind == "meld":
                melded.add(played.location)
    return Perspective(
        phase=view.phase,
        hand=list(view.hand or []),
        car=view.car,
        files_top=view.files_top,
        files_cards=view.files_cards,
        looking_at=view.looking_at,
        melded=melded,
        in_front=in_front,
        seen=[loc.seen_card for loc in view.locations],
        case_file_size=view.case_file_size,
    )


def perspective_of_state(state: BonnieClydeState, seat: int) -> Perspective:
    in_front: Counter[int] = Counter()
    melded: set[int] = set()
    for table in state.tables:
        for played in table:
            in_front[played.location] += played.count
            if played.kind == "meld":
                melded.add(played.location)
    looking = state.pending_look
    return Perspective(
        phase=phase(state),
        hand=state.hands[seat],
        car=state.car,
        files_top=state.files[-1] if state.files else None,
        files_cards=state.files if state.searching else None,
        looking_at=state.locations[looking - 1] if looking is not None else None,
        melded=melded,
        in_front=in_front,
        seen=state.seen[seat],
        case_file_size=len(state.case_file),
    )


def card_value(p: Perspective, card: Card, extra_in_hand: int = 0) -> float:
    """How much keeping (or getting) ``card`` is worth to this seat, roughly in cards."""
    if card == TED_HINTON:
        return 1.5
    if card.location is None:
        return 0.0
    location = card.location
    held = sum(1 for c in p.hand if c == card) + extra_in_hand
    if location in p.melded:
        return 6.0  # it can be laid off
    live = EVIDENCE_PER_LOCATION - p.in_front[location]
    if live < MELD_MINIMUM:
        return 0.0  # too few left anywhere to ever meld
    value = {0: 0.5, 1: 0.5, 2: 3.0}.get(held, 5.0)
    if location == p.car:
        value += 0.5
    return value


def _playable_now(p: Perspective, card: Card | None) -> bool:
    """Whether ``card``, drawn now, could be melded or laid off this turn. The greedy
    player takes the FBI Files' top card only then: two players passing one card back and
    forth through the Files would otherwise never empty the Case File."""
    if card is None or card.location is None:
        return False
    if card.location in p.melded:
        return True
    held = sum(1 for c in p.hand if c == card) + 1
    return held >= MELD_MINIMUM and len(p.hand) + 1 > held


def _play_points(p: Perspective, location: int, count: int) -> float:
    points = count * (4.0 if location == p.car else 2.0)
    seen = p.seen[location - 1]
    if seen in FUGITIVES and location == p.car:
        points += 10.0
    return points


def _car_target(p: Perspective) -> int:
    """Where this seat would like the car: at a fugitive it saw, else where it holds most."""
    for index, card in enumerate(p.seen):
        if card in FUGITIVES:
            return index + 1
    held = Counter(c.location for c in p.hand if c.location is not None)
    if held:
        location, count = held.most_common(1)[0]
        if count >= 2:
            return location
    return LAST_LOCATION  # the bonus for going out is the car's position


def choose(view: BonnieClydeView, legal: Sequence[BonnieClydeCommand]) -> BonnieClydeCommand:
    """The greedy bot's move, from what the seat's view shows."""
    return best_move(perspective_of_view(view), legal)


def best_move(p: Perspective, legal: Sequence[BonnieClydeCommand]) -> BonnieClydeCommand:
    """The greedy move of ``legal`` for a seat that knows ``p``."""
    first = legal[0]
    if len(legal) == 1:
        return first
    if p.phase == "draw":
        chosen: BonnieClydeCommand = (
            DrawFromFiles() if _playable_now(p, p.files_top) else DrawFromCaseFile()
        )
        return chosen if chosen in legal else first
    if p.phase == "search_files":
        takes = [m for m in legal if isinstance(m, TakeFromFiles)]
        return max(takes, key=lambda m: card_value(p, m.card, 1))
    if p.phase == "look":
        looked = p.looking_at
        keep = looked is not None and card_value(p, looked, 1) >= 3.0
        return TakeHiddenCard() if keep and TakeHiddenCard() in legal else LeaveHiddenCard()
    if p.phase == "move_car":
        target = _car_target(p)
        move = MoveCar("up") if target >= p.car else MoveCar("down")
        return move if move in legal else first
    return _greedy_play(p, legal)


def _greedy_play(p: Perspective, legal: Sequence[BonnieClydeCommand]) -> BonnieClydeCommand:
    if len(p.hand) == 1:
        # The last card: going out earns the car bonus and ends the hand now, even when
        # it is a Ted Hinton that could still draw or search
        # (docs/house-rules.md#bonnie_clyde-hand-never-empty).
        return next(m for m in legal if isinstance(m, Discard))
    best: BonnieClydeCommand | None = None
    best_points = 0.0
    for move in legal:
        if isinstance(move, Meld | LayOff):
            points = _play_points(p, move.location, move.count)
            if points > best_points:
                best, best_points = move, points
    if best is not None:
        return best
    if TedHintonDrawTwo() in legal and p.case_file_size >= 2:
        return TedHintonDrawTwo()
    if TedHintonSearchFiles() in legal:
        return TedHintonSearchFiles()
    discards = [m for m in legal if isinstance(m, Discard)]
    return min(discards, key=lambda m: (card_value(p, m.card), card_order(m.card)))
