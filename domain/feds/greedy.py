"""The Feds' greedy policy: the move that maximises the projected final margin.

The margin (`domain.feds.projection`) is the seat's score as if every location were busted
now, minus the others' average. Flipping a mole is worth a little for the seat that will
use the flipped power (or costs that, for a rival); a peek is worth a little; a blind draw
counts at its expected value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.feds.cards import (
    AGENTS,
    CITY_CARDS,
    COLOURS,
    LOCATION_INDEX,
    POWER,
    STRENGTH,
    Agent,
)
from domain.feds.commands import (
    ArrestColour,
    ArrestCriminal,
    ArrestCriminals,
    ChooseAgent,
    DrawCriminal,
    FedsCommand,
    FlipMole,
    MoveCriminal,
    PeekAtMole,
    RedeployAgent,
    SwapSirens,
)
from domain.feds.projection import Board, Haul
from domain.feds.views import FedsView

#: What the greedy bot reckons one use of a special power is worth, in points.
POWER_WORTH = 2.0
#: A peek is information only: worth a little more than nothing.
PEEK_WORTH = 0.1


def choose(view: FedsView, legal: Sequence[FedsCommand]) -> FedsCommand:
    """The greedy bot's move: the best of ``legal`` by the greedy estimate."""
    return ranked(view, legal)[0]


def ranked(view: FedsView, legal: Sequence[FedsCommand]) -> list[FedsCommand]:
    """``legal`` best first by the greedy estimate (stable among equals)."""
    board = Board(view)
    base = [board.haul(i) for i in range(len(board.stacks))]
    values = [_value(view, board, base, move) for move in legal]
    order = sorted(range(len(legal)), key=lambda i: -values[i])
    return [legal[i] for i in order]


def _value(view: FedsView, board: Board, base: list[Haul], move: Any) -> float:
    me = board.me
    if isinstance(move, ChooseAgent):
        index = LOCATION_INDEX[move.location]
        stack = board.stacks[index]
        stack.append((me, float(STRENGTH[move.agent])))
        hauls = list(base)
        hauls[index] = board.haul(index)
        stack.pop()
        return board.margin(hauls)
    if isinstance(move, FlipMole):
        return board.margin(base) + _flip_worth(view, LOCATION_INDEX[move.location])
    if isinstance(move, PeekAtMole):
        criminals = view.locations[LOCATION_INDEX[move.location]].criminals.total()
        return board.margin(base) + PEEK_WORTH * (1 + criminals / 10)
    if isinstance(move, RedeployAgent):
        return _redeploy_value(view, board, base, move.agent, LOCATION_INDEX[move.to_location])
    if isinstance(move, SwapSirens):
        return board.margin(base) - PEEK_WORTH
    if isinstance(move, MoveCriminal):
        here = LOCATION_INDEX[view.activations[-1].location]
        colour = COLOURS.index(move.colour)
        target = LOCATION_INDEX[move.to_location]
        return _with_criminals(board, [(here, colour, -1), (target, colour, 1)])
    if isinstance(move, ArrestCriminal):
        here = LOCATION_INDEX[view.activations[-1].location]
        return _with_arrest(board, here, {COLOURS.index(move.colour): 1})
    if isinstance(move, DrawCriminal):
        here = LOCATION_INDEX[view.activations[-1].location]
        bag = view.bag
        total = bag.total()
        return sum(
            bag.of(c) / total * _with_criminals(board, [(here, i, 1)])
            for i, c in enumerate(COLOURS)
            if bag.of(c)
        )
    if isinstance(move, ArrestCriminals) and view.siren_arrest is not None:
        here = LOCATION_INDEX[view.siren_arrest.location]
        return _with_arrest(board, here, {COLOURS.index(c): 1 for c in move.colours})
    if isinstance(move, ArrestColour) and board.busted is not None:
        here, order, turn = board.busted
        colour = COLOURS.index(move.colour)
        count = board.criminals[here][colour]
        board.busted = (here, order, turn + 1)
        value = _with_arrest(board, here, {colour: count})
        board.busted = (here, order, turn)
        return value
    return board.margin(base)  # DeclinePower, and anything without an estimate


def _with_criminals(board: Board, changes: list[tuple[int, int, int]]) -> float:
    for index, colour, delta in changes:
        board.criminals[index][colour] += delta
    value = board.evaluate()
    for index, colour, delta in changes:
        board.criminals[index][colour] -= delta
    return value


def _with_arrest(board: Board, index: int, taken: dict[int, int]) -> float:
    jail = board.jails[board.me]
    for colour, count in taken.items():
        board.criminals[index][colour] -= count
        jail[colour] += count
    value = board.evaluate()
    for colour, count in taken.items():
        board.criminals[index][colour] += count
        jail[colour] -= count
    return value


def _redeploy_value(
    view: FedsView, board: Board, base: list[Haul], agent: Agent, target: int
) -> float:
    me = board.me
    source = next(
        i
        for i, loc in enumerate(view.locations)
        if any(a.owner == me and a.agent == agent for a in loc.field)
    )
    position = next(
        p for p, a in enumerate(view.locations[source].field) if a.owner == me and a.agent == agent
    )
    moved = board.stacks[source].pop(position)
    insert_at = len(view.locations[target].field)
    board.stacks[target].insert(insert_at, moved)
    hauls = list(base)
    hauls[source] = board.haul(source)
    hauls[target] = board.haul(target)
    board.stacks[target].pop(insert_at)
    board.stacks[source].insert(position, moved)
    return board.margin(hauls)


def _flip_worth(view: FedsView, index: int) -> float:
    """What flipping the mole at ``index`` is worth through the power it may activate."""
    mole = view.locations[index].mole
    me = view.seat
    if mole is None or mole.owner is None:
        return 0.0
    flipper_uses = CITY_CARDS[view.city].infiltrated_power_user == "flipper"
    user_is_me = flipper_uses or mole.owner == me
    sign = 1.0 if user_is_me else -1.0
    if mole.agent is not None:
        return sign * POWER_WORTH if POWER[mole.agent] is not None else 0.0
    seen = [a.agent for loc in view.locations for a in loc.field if a.owner == mole.owner]
    seen += [
        loc.mole.agent
        for loc in view.locations
        if loc.mole is not None and loc.mole.owner == mole.owner and loc.mole.agent is not None
    ]
    pool = [a for a in AGENTS if a not in seen]
    specials = sum(1 for a in pool if POWER[a] is not None)
    return sign * POWER_WORTH * specials / len(pool) if pool else 0.0
