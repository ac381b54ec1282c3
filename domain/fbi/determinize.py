"""What a seat knows, as a state: the view turned back into an `FbiState`.

The hidden information in FBI is the deck order and the agents the other seats hold (kept
in hand until played, docs/house-rules.md#fbi-secret-agents). `state_from_view` rebuilds a
state from a view with a given deck and agents; `determinize` samples both from what the
view allows, for the expert's playouts.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from domain.fbi.cards import AGENTS, CHARACTER_DECK, DOUBLE_AGENT, Agent, Colour
from domain.fbi.evolve import agents_in_play
from domain.fbi.state import FbiState, SeatRelease
from domain.fbi.views import FbiView
from domain.rng import Rng


def determinize(view: FbiView, rng: Rng) -> FbiState:
    """A full state the view could come from: the unseen characters shuffled into the deck,
    then every other seat dealt unplayed agents consistent with what is public."""
    deck = rng.shuffled(unseen_characters(view))
    return state_from_view(view, deck, sample_agents(agent_options(view), rng))


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
