"""The rules data published by ``GET /v1/rules/bonnie_clyde`` (all of it from `cards`),
and the house rules the game plays by, in plain words for clients (docs/house-rules.md
lists them: docs/house-rules.md#bonnie_clyde)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.bonnie_clyde import cards
from domain.bonnie_clyde.cards import Card
from domain.bonnie_clyde.commands import COMMAND_TYPES
from domain.bonnie_clyde.options import BonnieClydeOptions
from domain.engine import CommandRule, HouseRule, command_rules, doc


class LocationRule(msgspec.Struct, frozen=True):
    """One board location."""

    location: Annotated[
        int,
        doc(
            "A board location, 1 to 10 (the car moves up towards 10); its name is in the rules "
            "data."
        ),
    ]
    name: Annotated[str, doc("Its name.")]


class DeckEntry(msgspec.Struct, frozen=True):
    """Cards of one kind in the deck."""

    card: Annotated[Card, doc("The card.")]
    count: Annotated[int, doc("How many copies.")]


class HandSizeRule(msgspec.Struct, frozen=True):
    """Cards dealt per seat for a seat count."""

    seats: Annotated[int, doc("The number of seats.")]
    cards: Annotated[int, doc("Cards dealt to each seat.")]


class BonnieClydeRules(msgspec.Struct, frozen=True):
    """Bonnie and Clyde's rules data: the numbers its rules use."""

    name: Annotated[str, doc("The game's name in the API: bonnie_clyde.")]
    title: Annotated[str, doc("The printed title.")]
    summary: Annotated[str, doc("How a game goes, in plain text.")]
    min_seats: Annotated[int, doc("Fewest seats: 2.")]
    max_seats: Annotated[int, doc("Most seats: 4.")]
    locations: Annotated[list[LocationRule], doc("The ten board locations.")]
    car_start: Annotated[int, doc("Where the car starts each hand.")]
    deck: Annotated[list[DeckEntry], doc("The deck, by kind of card.")]
    deck_size: Annotated[int, doc("Cards in the deck.")]
    hand_sizes: Annotated[list[HandSizeRule], doc("Cards dealt per seat, by seat count.")]
    deck_cards_under_locations: Annotated[
        int,
        doc(
            "Random deck cards placed face down under the locations with Bonnie and Clyde each "
            "hand."
        ),
    ]
    meld_minimum: Annotated[int, doc("Fewest Evidence cards in a meld.")]
    layoff_minimum: Annotated[int, doc("Fewest Evidence cards in a layoff.")]
    ted_hinton_draw: Annotated[int, doc("Cards a Ted Hinton draws from the Case File.")]
    points_per_evidence: Annotated[int, doc("Points per Evidence card in front of a seat.")]
    points_per_sideways_evidence: Annotated[int, doc("Points per sideways Evidence card.")]
    points_per_fugitive: Annotated[int, doc("Points per captured Bonnie or Clyde.")]
    target_min: Annotated[int, doc("Smallest target option.")]
    target_max: Annotated[int, doc("Largest target option.")]
    options: Annotated[BonnieClydeOptions, doc("The creation options, with their defaults.")]
    commands: Annotated[list[CommandRule], doc("Every kind of move, with what it does.")]


SUMMARY = (
    "Mystery Rummy: draw, meld and lay off Evidence of the ten locations, steer the Crime "
    "Spree car, and capture Bonnie and Clyde hidden under the board. Hands are played until, "
    "after a hand, one player alone has the highest total at or above the target."
)


def _locations_text() -> str:
    names = ", ".join(f"{loc} {cards.location_name(loc)}" for loc in cards.LOCATIONS)
    return (
        "The rulebook fixes locations 1, 2, 9 and 10 and names Joplin; the others are "
        f"placed in historical order. The board: {names}."
    )


#: What the rulebook leaves open, decided once (docs/house-rules.md#bonnie_clyde); served
#: with the rules.
HOUSE_RULES: tuple[HouseRule, ...] = (
    HouseRule("board", "Board", _locations_text()),
    HouseRule(
        "first-dealer",
        "Each hand",
        "The first dealer is chosen at random and recorded in the deal. The dealer moves "
        "one seat clockwise each hand, and the player to the dealer's left starts.",
    ),
    HouseRule(
        "fbi-files-hidden",
        "FBI Files",
        "Only the top card of the FBI Files (the discard pile) is visible to anyone; the "
        "rest is hidden from all players. A Ted Hinton search shows the whole pile to its "
        "player alone.",
    ),
    HouseRule(
        "hand-never-empty",
        "Plays",
        "A play that would leave the hand empty before the discard is illegal. It is judged "
        "on what the play leaves: a meld or a layoff must keep at least one card in hand. "
        "With a Ted Hinton as the last card, draw 2 and take any card from the FBI Files "
        "are legal (a card comes back into the hand); look under a location is not (it "
        "may end with the card left where it lies).",
    ),
    HouseRule(
        "ted-hinton-needs-a-target",
        "Ted Hinton",
        "At most one Ted Hinton per turn. Each of its choices needs something to act on: "
        "a Case File to draw from, FBI Files to search, a card under the location looked "
        "at. Draw 2 draws what is left if the Case File holds fewer cards; drawing its "
        "last card ends the hand after this turn. The Ted Hinton goes on the FBI Files "
        "once its action is done.",
    ),
    HouseRule(
        "look-always-answered",
        "Looking under a location",
        "After a look the player always answers, take or leave, even when the card must be "
        "left (Bonnie or Clyde away from the car, or any fugitive seen by a Ted Hinton), so "
        "the table cannot tell that a fugitive lies there. A card taken from under a "
        "location leaves the spot empty.",
    ),
    HouseRule(
        "layoff-splitting",
        "Layoffs",
        "Laying off several cards of one location together is one layoff, one at a time is "
        "several (the player's choice); each meld or layoff has its own look and its own "
        "car move.",
    ),
    HouseRule(
        "car-at-the-edges",
        "The car",
        "A meld moves the car up 1 and stays on Gibson LA (10) when it is there; a layoff "
        "moves it up or down 1 by the player's choice, and at an edge the only way it can, "
        "without a decision.",
    ),
    HouseRule(
        "car-bonus",
        "Hand score",
        "The player who went out adds the car's position, also when the Case File ran out "
        "on the same turn, since going out is what ended the hand. When the hand ended "
        "because the last Case File card was drawn and its player did not go out, nobody "
        "gets the car bonus.",
    ),
    HouseRule(
        "shut-out",
        "Hand score",
        "The player who ended the hand, by going out or by drawing the last Case File card, "
        "and has both Bonnie and Clyde in front makes every other player score 0 for the "
        "hand.",
    ),
    HouseRule(
        "tie-at-the-target",
        "End of the game",
        "Hands continue until, after a hand, someone has at least the target (option "
        "target). If several players share the highest total at or above the target, "
        "another hand is played.",
    ),
)


RULEBOOK = BonnieClydeRules(
    name=cards.GAME_NAME,
    title=cards.GAME_TITLE,
    summary=SUMMARY,
    min_seats=cards.MIN_SEATS,
    max_seats=cards.MAX_SEATS,
    locations=[LocationRule(loc, cards.location_name(loc)) for loc in cards.LOCATIONS],
    car_start=cards.CAR_START,
    deck=[
        *(
            DeckEntry(card=cards.EVIDENCE[loc], count=cards.EVIDENCE_PER_LOCATION)
            for loc in cards.LOCATIONS
        ),
        DeckEntry(card=cards.TED_HINTON, count=cards.TED_HINTON_COUNT),
        DeckEntry(card=cards.BONNIE, count=1),
        DeckEntry(card=cards.CLYDE, count=1),
    ],
    deck_size=cards.DECK_SIZE,
    hand_sizes=[HandSizeRule(seats, size) for seats, size in cards.HAND_SIZES.items()],
    deck_cards_under_locations=cards.DECK_CARDS_UNDER_LOCATIONS,
    meld_minimum=cards.MELD_MINIMUM,
    layoff_minimum=cards.LAYOFF_MINIMUM,
    ted_hinton_draw=cards.TED_HINTON_DRAW,
    points_per_evidence=cards.POINTS_PER_EVIDENCE,
    points_per_sideways_evidence=cards.POINTS_PER_SIDEWAYS_EVIDENCE,
    points_per_fugitive=cards.POINTS_PER_FUGITIVE,
    target_min=cards.TARGET_MIN,
    target_max=cards.TARGET_MAX,
    options=BonnieClydeOptions(),
    commands=command_rules(COMMAND_TYPES),
)
