"""What a seat (or a spectator) may see of an FBI game.

Everything on the table is open: slammers, the face-up characters, released cards, the
arrest order and, once revealed, every seat's agents. Hidden are the undealt deck order
(only its size is shown) and, while the sealed agent step is open, other seats' choices.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.fbi import scoring
from domain.fbi.cards import Card, Colour, Variant, card
from domain.fbi.events import BonusAward, DeckShuffled
from domain.fbi.state import FbiState, Phase, arrest_sequence


class ReleaseView(msgspec.Struct, frozen=True):
    """One seat's release this turn; ``card`` None means it released nothing."""

    seat: int
    card: Card | None


class FbiView(msgspec.Struct, frozen=True, tag="fbi", tag_field="game"):
    """``table`` is in placement order: in the stacked variant the last card of a colour is
    the top of its pile. ``agents[seat]`` are the agents that seat still has to play this
    turn (None while its sealed choice is hidden). ``scores`` include bonus cards only once
    the game is over; ``bonuses`` is empty until then."""

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
    scores: list[int]
    bonuses: list[BonusAward]


def view(state: FbiState, seat: int | None) -> FbiView:
    agents: list[list[Colour] | None] = []
    for other, remaining in enumerate(state.agents):
        hidden = state.phase == "agents" and other != seat
        agents.append(None if hidden else list(remaining))
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
        scores=totals,
        bonuses=list(state.bonuses),
    )


def redact(event: Any, seat: int | None) -> Any:
    """The deck order is hidden from everyone during play (the final replay shows it).

    Agent choices are events only once every seat has revealed, so they are public."""
    if isinstance(event, DeckShuffled):
        return DeckShuffled(size=event.size, card_ids=None)
    return event
