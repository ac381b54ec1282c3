"""The folded state of one FBI game."""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.fbi.cards import Colour, Variant
from domain.fbi.events import BonusAward

# "dealing", "between_turns" and "placing" are transient: automatic events always follow
# them within the same decision, so a stored game rests in "release", "agents", "arrest"
# or "over".
Phase = Literal["dealing", "between_turns", "placing", "release", "agents", "arrest", "over"]


class SeatRelease(msgspec.Struct, frozen=True):
    """What one seat released this turn; ``card_id`` None means nothing."""

    seat: int
    card_id: int | None


class FbiState(msgspec.Struct, frozen=True):
    """Card ids refer to `domain.fbi.cards.ALL_CARDS`.

    ``table`` keeps placement order, which is also the pile order of the stacked variant
    (the last card of a colour is the top of its pile). ``agents[seat]`` are the seat's
    agents still to play this turn, "2x" already resolved into its colour: secret, only its
    owner sees them (docs/house-rules.md#fbi-secret-agents). ``played[seat]`` are the agents
    it has played this turn, in order: public.
    """

    seats: int
    variant: Variant
    slammers: list[list[int]]
    agents: list[list[Colour]]
    played: list[list[Colour]]
    phase: Phase = "dealing"
    turn: int = 0
    handcuffs: int = 0
    deck: list[int] = msgspec.field(default_factory=list)
    table: list[int] = msgspec.field(default_factory=list)
    released: list[int] = msgspec.field(default_factory=list)
    releases: list[SeatRelease] = msgspec.field(default_factory=list)
    arrest_order: list[int] = msgspec.field(default_factory=list)
    arrest_index: int = 0
    bonuses: list[BonusAward] = msgspec.field(default_factory=list)


def arrest_sequence(state: FbiState) -> list[int]:
    """Round one in arrest order, round two reversed (the last arrester goes again first)."""
    return state.arrest_order + state.arrest_order[::-1]


def current_releaser(state: FbiState) -> int:
    return (state.handcuffs + len(state.releases)) % state.seats


def current_arrester(state: FbiState) -> int:
    return arrest_sequence(state)[state.arrest_index]
