"""What a seat (or a spectator) may see of an FBI game.

Everything on the table is open: slammers, the face-up characters, released cards, the
arrest order and the agents played. Hidden are the undealt deck order (only its size is
shown) and the agents each seat holds: they are kept in hand, so other seats and spectators
see only how many a seat still holds, and an agent becomes public when its owner plays it
(docs/house-rules.md#fbi-secret-agents).
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.engine import PerSeat, Seat, doc
from domain.fbi import scoring
from domain.fbi.cards import Card, Colour, Variant, card
from domain.fbi.events import AgentsSelected, BonusAward, DeckShuffled, FbiEvent
from domain.fbi.state import FbiState, Phase, arrest_sequence


class ReleaseView(msgspec.Struct, frozen=True):
    """One seat's release this turn."""

    seat: Seat
    card: Annotated[Card | None, doc("The released card, null when it released nothing.")]


class FbiView(msgspec.Struct, frozen=True, tag="fbi", tag_field="game"):
    """What one seat (or a spectator) sees of an FBI game: everything but the deck order
    and the other seats' unplayed agents."""

    seat: Annotated[int | None, doc("The viewing seat, null for a spectator.")]
    seats: Annotated[int, doc("How many seats play (2 to 5).")]
    variant: Annotated[Variant, doc("base or stacked (see the options).")]
    phase: Annotated[
        Phase,
        doc(
            "Where the turn is: dealing, between_turns, placing (cards go on the table), "
            "release (seats release a slammer card in turn), agents (the sealed choice of "
            "two agents), arrest (seats play agents in arrest order), over."
        ),
    ]
    turn: Annotated[int, doc("The game turn, from 1 (0 before the first).")]
    handcuffs_holder: Annotated[int, doc("The seat with the handcuffs: it releases first.")]
    deck_size: Annotated[int, doc("Character cards left in the deck.")]
    table: Annotated[
        list[Card],
        doc(
            "The characters on the table, in placement order (in the stacked variant the "
            "last card of a colour is the top of its pile)."
        ),
    ]
    slammers: Annotated[
        list[list[Card]], doc("Each seat's slammer (its arrested cards), indexed by seat.")
    ]
    released: Annotated[
        list[Card], doc("Every card released so far in the game (out of play), in order.")
    ]
    releases: Annotated[
        list[ReleaseView],
        doc("This turn's releases so far, in release order (from the handcuffs holder)."),
    ]
    arrest_order: Annotated[
        list[int],
        doc("This turn's seats from first to last arrester (empty before the releases end)."),
    ]
    arrest_sequence: Annotated[
        list[int],
        doc(
            "Who arrests in turn, one entry per arrest: the arrest order, then the same "
            "seats in reverse (each seat plays its two agents)."
        ),
    ]
    arrest_index: Annotated[int, doc("The position in arrest_sequence of the next arrest, from 0.")]
    agents: Annotated[
        list[list[Colour] | None],
        doc(
            "Per seat, the agents it still holds this turn (a 2x shown as the colour it "
            "doubles): a list for the viewing seat, null for every other seat (secret)."
        ),
    ]
    agents_left: Annotated[
        PerSeat, doc("How many agents each seat still holds this turn (public), by seat.")
    ]
    agents_played: Annotated[
        list[list[Colour]], doc("Per seat, the agents it has played this turn, in order.")
    ]
    scores: Annotated[
        PerSeat,
        doc(
            "Each seat's score: the sum of its slammer's values, plus bonus cards once the "
            "game is over."
        ),
    ]
    bonuses: Annotated[
        list[BonusAward], doc("The bonus cards and who earned them; empty until the end.")
    ]


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


def redact(event: FbiEvent, seat: int | None) -> FbiEvent:
    """The deck order is hidden from everyone during play (the final replay shows it).

    A seat's selected agents are shown to that seat only: everyone else learns that it
    chose (the agents become public one by one as it plays them)."""
    if isinstance(event, DeckShuffled):
        return DeckShuffled(size=event.size, card_ids=None)
    if isinstance(event, AgentsSelected) and event.seat != seat:
        return AgentsSelected(seat=event.seat)
    return event
