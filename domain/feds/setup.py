"""The opening event: criminals drawn from the bag, tokens, the Officer's deck, the badge."""

from __future__ import annotations

from domain.errors import InvalidOptions
from domain.feds.cards import (
    AGENTS,
    CITY_CARDS,
    COLOURS,
    CRIMINALS,
    LOCATIONS,
    SEATS_WITH_OFFICER,
    SIREN_TOKENS,
    UTILITY_TOKENS,
    Agent,
    Colour,
    criminals_of,
)
from domain.feds.events import FedsEvent, GameSetUp, UtilityTokenFace
from domain.feds.options import FedsOptions
from domain.rng import Rng


def setup(parsed: FedsOptions, seats: int, rng: Rng) -> list[FedsEvent]:
    """The opening event. The match layer checked the seat count and each option; what
    ties two options together is checked here."""
    if parsed.sirens and CITY_CARDS[parsed.city].sirens:
        raise InvalidOptions(f"the {parsed.city} city card has sirens on already")
    city = CITY_CARDS[parsed.city]
    n_locations = len(LOCATIONS)

    bag: list[Colour] = [c for c in COLOURS for _ in range(CRIMINALS.of(c))]
    drawn = rng.fork("criminals").shuffled(bag)
    per = city.criminals_per_location
    criminals = [criminals_of(drawn[i * per : (i + 1) * per]) for i in range(n_locations)]

    tokens: list[UtilityTokenFace | None] = [None] * n_locations
    if city.utility_tokens != "none":
        values = rng.fork("utility-tokens").shuffled(UTILITY_TOKENS)
        face_down: set[int] = set()
        if city.utility_tokens == "two-face-down":
            # Decided: which two locations get a face-down token is drawn at random too.
            face_down = set(rng.fork("face-down").shuffled(range(n_locations))[:2])
        tokens = [UtilityTokenFace(values[i], i not in face_down) for i in range(n_locations)]

    sirens = parsed.sirens or city.sirens
    siren_tokens: list[int | None] = [None] * n_locations
    if sirens:
        siren_tokens = list(rng.fork("sirens").shuffled(SIREN_TOKENS))

    officer_deck: list[Agent] | None = None
    if seats == SEATS_WITH_OFFICER:
        officer_deck = rng.fork("officer").shuffled(AGENTS)
    return [
        GameSetUp(
            seats=seats,
            city=parsed.city,
            sirens=sirens,
            badge=rng.fork("badge").below(seats),
            criminals=criminals,
            utility_tokens=tokens,
            siren_tokens=siren_tokens,
            officer_deck=officer_deck,
            officer_deck_size=len(officer_deck) if officer_deck else 0,
        )
    ]
