"""The opening events of FBI: purple cards dealt, the deck shuffled, the first turn begun."""

from __future__ import annotations

from domain.fbi.cards import CHARACTER_DECK, purple_pair
from domain.fbi.events import DeckShuffled, FbiEvent, GameStarted, PurpleCardsDealt
from domain.fbi.options import FbiOptions
from domain.fbi.rules import with_automatic
from domain.rng import Rng


def setup(options: FbiOptions, seats: int, rng: Rng) -> list[FbiEvent]:
    """The opening events, then everything automatic up to the first release."""
    # Each seat gets a random +k of +1..+N and the matching -k.
    ks = rng.shuffled(range(1, seats + 1))
    slammers = [list(purple_pair(k)) for k in ks]
    deck = rng.shuffled([c.id for c in CHARACTER_DECK])
    opening: list[FbiEvent] = [
        GameStarted(seats=seats, variant=options.variant),
        PurpleCardsDealt(slammers=slammers),
        DeckShuffled(size=len(deck), card_ids=deck),
    ]
    return with_automatic(None, opening)
