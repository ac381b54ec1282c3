"""FBI bots. They see only their seat's view and the legal list.

- ``random``: any legal move.
- ``greedy``: a one-move lookahead on the score margin (own final score, bonuses counted as
  if the game ended now, minus the best other score): release the card whose loss helps
  most (an innocent), select the agent pair that would arrest the most valuable
  characters if nobody else took them, and arrest with the agent worth most right now.
- ``expert``: determinized rollouts. The hidden information in FBI is the deck order and
  the agents the other seats hold (kept in hand until played, HOUSE-RULES §1.6), so each
  sample shuffles the unseen characters into a deck and deals every other seat unplayed
  agents consistent with what is public (``sample_agents``). Each candidate move (every
  legal move, or greedy's best few when there are many) is played out on the same samples,
  everyone then playing greedy (the others' sealed agents included) to the end of the next
  turn, and the move with the best total margin is chosen. About 0.1-0.3 s per move on one
  core.

Greedy reads nothing of the other seats' agents: its valuation assumes nobody else arrests.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from domain.budget import TUNED, Budget
from domain.engine import BotLevel
from domain.fbi import scoring
from domain.fbi.cards import AGENTS, CHARACTER_DECK, DOUBLE_AGENT, Agent, Colour, card
from domain.fbi.commands import FbiCommand, Release, ReleaseNone, SelectAgents
from domain.fbi.evolve import agents_in_play
from domain.fbi.rules import apply, arrest_target, legal, pending
from domain.fbi.state import FbiState, SeatRelease
from domain.fbi.views import FbiView
from domain.rng import Rng

# Expert search budget: playouts per decision, shared among the candidate moves (at least
# EXPERT_MIN_SAMPLES each); only greedy's EXPERT_CANDIDATES best moves are played out (agent
# selection offers up to 15 pairs); a playout is scored EXPERT_EXTRA_TURNS after this turn.
EXPERT_PLAYOUTS = 72
EXPERT_MIN_SAMPLES = 4
EXPERT_CANDIDATES = 6
EXPERT_EXTRA_TURNS = 1


def bot_move(
    level: BotLevel,
    view: FbiView,
    moves: Sequence[FbiCommand],
    rng: Rng,
    budget: Budget = TUNED,
) -> FbiCommand:
    if not moves:
        raise ValueError("no legal move to choose from")
    if level == "random" or len(moves) == 1 or view.seat is None:
        return rng.choice(moves)
    seat = view.seat
    if level == "greedy":
        return greedy_move(state_from_view(view, unseen_characters(view)), seat, moves)
    return expert_move(view, seat, moves, rng, budget)


# ---- the view as a state ----------------------------------------------------------------


def unseen_characters(view: FbiView) -> list[int]:
    """Character cards not on the table, in a slammer or released: the deck's contents."""
    seen = {c.id for c in view.table}
    seen.update(c.id for c in view.released)
    for slammer in view.slammers:
        seen.update(c.id for c in slammer)
    return [c.id for c in CHARACTER_DECK if c.id not in seen]


def state_from_view(
    view: FbiView, deck: Sequence[int], agents: Sequence[Sequence[Colour]] | None = None
) -> FbiState:
    """A state matching everything ``view`` shows, with ``deck`` as the undealt order and
    ``agents`` as every seat's agents still held (by default: the own seat's, as the view
    shows them, and none for the others, whose agents the view does not show)."""
    if agents is None:
        agents = [list(a) if a is not None else [] for a in view.agents]
    return FbiState(
        seats=view.seats,
        variant=view.variant,
        slammers=[[c.id for c in slammer] for slammer in view.slammers],
        agents=[list(a) for a in agents],
        played=[list(p) for p in view.agents_played],
        phase=view.phase,
        turn=view.turn,
        handcuffs=view.handcuffs_holder,
        deck=list(deck),
        table=[c.id for c in view.table],
        released=[c.id for c in view.released],
        releases=[
            SeatRelease(seat=r.seat, card_id=None if r.card is None else r.card.id)
            for r in view.releases
        ],
        arrest_order=list(view.arrest_order),
        arrest_index=view.arrest_index,
        bonuses=list(view.bonuses),
    )


def agent_options(view: FbiView) -> list[list[list[Colour]]]:
    """For each seat, every list of agents it may still hold given what ``view`` shows.

    The own seat's agents are in the view. Another seat selected two different agents of
    {red, yellow, blue, green, black, 2x}, each colour with a character on the table at
    that moment; since then the table has only lost the cards taken by the agents played
    this turn, so those colours are the table's colours plus every colour played this turn.
    Its agents still held are a pair's colours minus the ones it has played. Each option
    comes from exactly one pair, so choosing uniformly among options is choosing uniformly
    among the pairs the seat may have selected."""
    offered = {c.colour for c in view.table}
    for played in view.agents_played:
        offered.update(played)
    usable: list[Agent] = [a for a in AGENTS if a in offered or a == DOUBLE_AGENT]
    options: list[list[list[Colour]]] = []
    for seat, held in enumerate(view.agents):
        left = view.agents_left[seat]
        if held is not None or left == 0:
            options.append([list(held or [])])
            continue
        played = view.agents_played[seat]
        # A real game always leaves the true pair among them; a hand-built position that
        # does not (agents no table allowed) falls back on every pair of agents.
        found = _unplayed(usable, played, left) or _unplayed(list(AGENTS), played, left)
        options.append(found)
    return options


def _unplayed(usable: Sequence[Agent], played: Sequence[Colour], left: int) -> list[list[Colour]]:
    found: list[list[Colour]] = []
    for first, second in combinations(usable, 2):
        remaining = agents_in_play(first, second)
        try:
            for colour in played:
                remaining.remove(colour)
        except ValueError:
            continue
        if len(remaining) == left and remaining not in found:
            found.append(remaining)
    return found


def sample_agents(options: Sequence[Sequence[list[Colour]]], rng: Rng) -> list[list[Colour]]:
    """One deal of every seat's agents still held, uniform over each seat's options."""
    return [
        list(seat_options[0]) if len(seat_options) == 1 else list(rng.choice(seat_options))
        for seat_options in options
    ]


# ---- greedy -------------------------------------------------------------------------------


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


def _greedy_value(state: FbiState, seat: int, move: FbiCommand, margins: _Margins) -> int:
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


def greedy_move(state: FbiState, seat: int, moves: Sequence[FbiCommand]) -> FbiCommand:
    margins = _Margins(state, seat)
    best = moves[0]
    best_value = _greedy_value(state, seat, best, margins)
    for move in moves[1:]:
        value = _greedy_value(state, seat, move, margins)
        if value > best_value:
            best, best_value = move, value
    return best


# ---- expert -------------------------------------------------------------------------------


def expert_move(
    view: FbiView,
    seat: int,
    moves: Sequence[FbiCommand],
    rng: Rng,
    budget: Budget = TUNED,
) -> FbiCommand:
    unseen = unseen_characters(view)
    agents = agent_options(view)
    if len(moves) > EXPERT_CANDIDATES:
        here = state_from_view(view, unseen)
        margins = _Margins(here, seat)
        ranked = sorted(moves, key=lambda m: -_greedy_value(here, seat, m, margins))
        moves = ranked[:EXPERT_CANDIDATES]
    totals = [0] * len(moves)
    for _ in budget.rounds(EXPERT_PLAYOUTS // len(moves), EXPERT_MIN_SAMPLES):
        # Every candidate meets the same sampled deck and agents, so they are compared on
        # equal luck.
        state = state_from_view(view, rng.shuffled(unseen), sample_agents(agents, rng))
        for i, move in enumerate(moves):
            totals[i] += _playout(state, seat, move)
    # The first best wins ties, as the candidates are ordered (greedy's ranking).
    return moves[max(range(len(moves)), key=lambda i: (totals[i], -i))]


def _playout(state: FbiState, seat: int, move: FbiCommand) -> int:
    """Play ``move`` then greedy moves for everyone; the margin at the horizon."""
    last_turn = state.turn + EXPERT_EXTRA_TURNS
    state = apply(state, seat, move)[1]
    while state.phase != "over" and state.turn <= last_turn:
        actor = pending(state)[0].seat
        choice = greedy_move(state, actor, legal(state, actor))
        state = apply(state, actor, choice)[1]
    return margin(state.slammers, seat)
