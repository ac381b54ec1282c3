"""The folded state of a Bonnie and Clyde game (snapshotted with msgpack)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from domain.bonnie_clyde.cards import CAR_START, Card
from domain.bonnie_clyde.events import (
    CarAtEnd,
    CarBonus,
    EndedBySeat,
    Ending,
    HandNumber,
    HandScores,
    ShutOut,
    Totals,
)
from domain.engine import doc

Phase = Literal["draw", "play", "search_files", "look", "move_car", "over"]
CarMoveDue = Literal["meld", "layoff"]


class PlayedSet(msgspec.Struct, frozen=True):
    """One meld or layoff in front of a player; a sideways set scores double."""

    kind: Annotated[Literal["meld", "layoff"], doc("meld or layoff.")]
    location: Annotated[int, doc("The location the Evidence is of (1 to 10).")]
    count: Annotated[int, doc("How many Evidence cards.")]
    sideways: Annotated[
        bool, doc("Played while the car was at that location: 4 points a card, not 2.")
    ]


class HandResult(msgspec.Struct, frozen=True):
    """How the last hand ended and was scored."""

    hand_number: HandNumber
    ending: Ending
    ended_by_seat: EndedBySeat
    car: CarAtEnd
    bonus: CarBonus
    shut_out: ShutOut
    hand_scores: HandScores
    totals: Totals


class BonnieClydeState(msgspec.Struct, frozen=True):
    """Piles are lists with their top card last. ``locations[i]`` is the card under
    location ``i + 1`` (None once taken). ``seen[s][i]`` is the card seat ``s`` looked at
    under location ``i + 1``, kept while it stays there.

    Within a turn the follow-ups of a play are flags: ``searching`` (a Ted Hinton search
    of the FBI Files), ``pending_look`` (a looked-at card to take or leave) and
    ``pending_car`` (the car move still owed for a meld or a layoff); `phase` derives the
    current step from them.
    """

    seats: int
    target: int
    totals: list[int]
    hand_number: int = 0
    dealer: int = 0
    turn_seat: int = 0
    turn: int = 0
    events_this_turn: int = 0
    drawn: bool = False
    ted_played: bool = False
    ted_in_play: bool = False
    searching: bool = False
    pending_look: int | None = None
    pending_car: CarMoveDue | None = None
    car: int = CAR_START
    case_file: list[Card] = []
    files: list[Card] = []
    locations: list[Card | None] = []
    hands: list[list[Card]] = []
    tables: list[list[PlayedSet]] = []
    fugitives: list[list[Card]] = []
    seen: list[list[Card | None]] = []
    last_hand: HandResult | None = None
    over: bool = False
    winner: int | None = None


def phase(state: BonnieClydeState) -> Phase:
    if state.over:
        return "over"
    if state.searching:
        return "search_files"
    if state.pending_look is not None:
        return "look"
    if state.pending_car is not None:
        return "move_car"
    if not state.drawn:
        return "draw"
    return "play"


def step_id(state: BonnieClydeState) -> str:
    """Unique per decision: every decision appends at least one event to the turn."""
    return f"t{state.turn}.{state.events_this_turn}.{phase(state)}"
