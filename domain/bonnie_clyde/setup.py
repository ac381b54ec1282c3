"""The opening events, and the shuffle and deal every hand starts with, recorded as an
event (docs/house-rules.md#bonnie_clyde-first-dealer)."""

from __future__ import annotations

from domain.bonnie_clyde.cards import (
    BONNIE,
    CAR_START,
    CLYDE,
    DECK_CARDS_UNDER_LOCATIONS,
    HAND_SIZES,
    deck_without_fugitives,
)
from domain.bonnie_clyde.events import BonnieClydeEvent, GameStarted, HandDealt
from domain.bonnie_clyde.options import BonnieClydeOptions
from domain.rng import Rng


def deal_hand(seats: int, hand_number: int, dealer: int, rng: Rng) -> HandDealt:
    """Everything is reshuffled: 8 random deck cards plus Bonnie and Clyde are shuffled
    and placed one under each location; the hands are dealt; one card starts the FBI
    Files; the rest is the Case File. The player left of the dealer starts."""
    deck = rng.shuffled(deck_without_fugitives())
    under = rng.shuffled([*deck[:DECK_CARDS_UNDER_LOCATIONS], BONNIE, CLYDE])
    rest = deck[DECK_CARDS_UNDER_LOCATIONS:]
    size = HAND_SIZES[seats]
    hands = [rest[i * size : (i + 1) * size] for i in range(seats)]
    rest = rest[seats * size :]
    files_top, case_file = rest[-1], rest[:-1]
    return HandDealt(
        hand_number=hand_number,
        dealer=dealer,
        first_seat=(dealer + 1) % seats,
        car=CAR_START,
        files_top=files_top,
        hand_sizes=[size] * seats,
        case_file_size=len(case_file),
        hands=list(hands),
        location_cards=under,
        case_file=case_file,
    )


def setup(options: BonnieClydeOptions, seats: int, rng: Rng) -> list[BonnieClydeEvent]:
    """The opening events: the game starts and the first hand is dealt by a dealer chosen
    at random (recorded in the deal)."""
    dealer = rng.below(seats)
    return [GameStarted(seats=seats, target=options.target), deal_hand(seats, 1, dealer, rng)]
