"""Bots. Each sees only its seat's view and the legal list.

- ``random``: a uniformly random legal move.
- ``greedy``: the move that maximises the projected final margin (`projection`): its score
  as if every location were busted now, minus the others' average. Flipping a mole is worth
  a little for the seat that will use the flipped power (or costs that, for a rival); a
  peek is worth a little; a blind draw counts at its expected value.
- ``expert``: determinized rollouts. The candidates (the greedy's best few) are each tried
  in a number of sampled worlds consistent with the view (`determinize`), played out to the
  end (random choices and powers, arrests that add most to the arresting jail); the best
  average final margin wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.budget import TUNED, Budget
from domain.engine import BotLevel
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
from domain.feds.determinize import determinize
from domain.feds.projection import Board, Haul, counts_of, points
from domain.feds.rules import apply, legal, pending
from domain.feds.scoring import final_scores
from domain.feds.state import FedsState
from domain.feds.views import FedsView
from domain.rng import Rng

#: What the greedy bot reckons one use of a special power is worth, in points.
POWER_WORTH = 2.0
#: A peek is information only: worth a little more than nothing.
PEEK_WORTH = 0.1
#: The expert tries at most this many candidates…
EXPERT_CANDIDATES = 6
#: …each in this many sampled worlds, played out at random to the end (~1 s on one core)…
EXPERT_WORLDS = 40
#: …and, however short the time budget, in at least this many.
EXPERT_MIN_WORLDS = 4


def bot_move(
    level: BotLevel,
    view: FedsView,
    legal_moves: Sequence[FedsCommand],
    rng: Rng,
    budget: Budget = TUNED,
) -> FedsCommand:
    if not legal_moves:
        raise ValueError("no legal move to choose from")
    if level == "random" or len(legal_moves) == 1:
        return rng.choice(legal_moves)
    if level == "greedy":
        return ranked(view, legal_moves)[0]
    return expert_move(view, legal_moves, rng, budget)


# ---- greedy --------------------------------------------------------------------------------


def ranked(view: FedsView, legal_moves: Sequence[FedsCommand]) -> list[FedsCommand]:
    """``legal_moves`` best first by the greedy estimate (stable among equals)."""
    board = Board(view)
    base = [board.haul(i) for i in range(len(board.stacks))]
    values = [_value(view, board, base, move) for move in legal_moves]
    order = sorted(range(len(legal_moves)), key=lambda i: -values[i])
    return [legal_moves[i] for i in order]


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


# ---- expert --------------------------------------------------------------------------------


def expert_move(
    view: FedsView, legal_moves: Sequence[FedsCommand], rng: Rng, budget: Budget = TUNED
) -> FedsCommand:
    me = view.seat
    if me is None:
        raise ValueError("a bot plays a seat")
    candidates = ranked(view, legal_moves)[:EXPERT_CANDIDATES]
    totals = [0.0] * len(candidates)
    for w in budget.rounds(EXPERT_WORLDS, EXPERT_MIN_WORLDS):
        world = determinize(view, rng.fork(f"world{w}"))
        for c, move in enumerate(candidates):
            play = rng.fork(f"play{w}.{c}")
            _, state = apply(world, me, move, play)
            totals[c] += _margin(final_scores(_play_out(state, play)), me)
    best = max(range(len(candidates)), key=lambda c: totals[c])
    return candidates[best]


def _play_out(state: FedsState, rng: Rng) -> FedsState:
    """Play to the end: random choices and powers, but every arrest takes what adds most to
    the arresting jail (random arrests would make the bust, where the points are, noise)."""
    while state.phase != "over":
        seat = pending(state)[0].seat
        moves = legal(state, seat)
        move = moves[0]
        if isinstance(move, ArrestColour | ArrestCriminals):
            move = _best_arrest(state, seat, moves)
        else:
            move = rng.choice(moves)
        _, state = apply(state, seat, move, rng)
    return state


def _best_arrest(state: FedsState, seat: int, moves: list[Any]) -> Any:
    jail = counts_of(state.jails[seat])
    now = points(jail)
    index = state.bust_location if state.phase == "bust" else state.siren_location
    here = state.locations[index].criminals if index is not None else None
    best, best_gain = moves[0], -1
    for move in moves:
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
