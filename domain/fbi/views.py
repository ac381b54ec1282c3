"""What a seat (or a spectator) may see of an FBI game.

Everything on the table is open: slammers, the face-up characters, released cards, the
arrest order and the agents played. Hidden are the undealt deck order (only its size is
shown) and the agents each seat holds: they are kept in hand (HOUSE-RULES §1.6), so other
seats and spectators see only how many a seat still holds, and an agent becomes public when
its owner plays it.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.fbi import scoring
from domain.fbi.cards import Card, Colour, Variant, card
from domain.fbi.events import AgentsSelected, BonusAward, DeckShuffled
from domain.fbi.state import FbiState, Phase, arrest_sequence


class ReleaseView(msgspec.Struct, frozen=True):
    """One seat's release this turn; ``card`` None means it released nothing."""

    seat: int
    card: Card | None


class FbiView(msgspec.Struct, frozen=True, tag="fbi", tag_field="game"):
    """``table`` is in placement order: in the stacked variant the last card of a colour is
    the top of its pile. ``agents[seat]`` are the agents that seat still holds this turn
    ("2x" resolved into its colour), shown to that seat only: None for every other seat.
    ``agents_left[seat]`` is how many it holds (public), ``agents_played[seat]`` the agents
    it has played this turn, in order (public). ``scores`` include bonus cards only once the
    game is over; ``bonuses`` is empty until then."""

    seat: int | None
    seats: int
    variant: Variant
    phase: Phase
    turn: int
    handcuffs_holder: int
    deck_size: int
    table: list[Card]
    slammers: list[list[Card]]
    released: list[Card]
    releases: list[ReleaseView]
    arrest_order: list[int]
    arrest_sequence: list[int]
    arrest_index: int
    agents: list[list[Colour] | None]
    agents_left: list[int]
    agents_played: list[list[Colour]]
    scores: list[int]
    bonuses: list[BonusAward]


def view(state: FbiState, seat: int | None) -> FbiView:
    agents: list[list[Colour] | None] = [
        list(held) if other == seat else None for other, held in enumerate(state.agents)
    ]
    if state.phase == "over":
        totals = scoring.scores(state.slammers, state.bonuses)
    else:
        totals = [scoring.slammer_total(slammer) for slammer in state.slammers]
    return FbiView(
        seat=seat,
        seats=state.seats,
        variant=state.variant,
        phase=state.phase,
        turn=state.turn,
        handcuffs_holder=state.handcuffs,
        deck_size=len(state.deck),
        table=[card(i) for i in state.table],
        slammers=[[card(i) for i in slammer] for slammer in state.slammers],
        released=[card(i) for i in state.released],
        releases=[
            ReleaseView(seat=r.seat, card=None if r.card_id is None else card(r.card_id))
            for r in state.releases
        ],
        arrest_order=list(state.arrest_order),
        arrest_sequence=arrest_sequence(state),
        arrest_index=state.arrest_index,
        agents=agents,
        agents_left=[len(held) for held in state.agents],
        agents_played=[list(played) for played in state.played],
        scores=totals,
        bonuses=list(state.bonuses),
    )


def redact(event: Any, seat: int | None) -> Any:
    """The deck order is hidden from everyone during play (the final replay shows it).

    A seat's selected agents are shown to that seat only: everyone else learns that it
    chose (the agents become public one by one as it plays them)."""
    if isinstance(event, DeckShuffled):
        return DeckShuffled(size=event.size, card_ids=None)
    if isinstance(event, AgentsSelected) and event.seat != seat:
        return AgentsSelected(seat=event.seat)
    return event
