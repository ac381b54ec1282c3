"""Who arrests first: strength at a location and the tie-break by closeness."""

from __future__ import annotations

from collections.abc import Sequence

from domain.feds.cards import (
    OFFICER_COLOUR_ORDER,
    SIREN_SHARES,
    STRENGTH,
    CityCard,
    Colour,
    Criminals,
)
from domain.feds.events import SirenShare
from domain.feds.state import FieldAgent


def arrest_order(field: Sequence[FieldAgent]) -> list[tuple[int | None, int]]:
    """``(owner, strength)`` of every owner with a card in ``field``, strongest first.

    Strength is the sum of the owner's cards in the field. Ties go to the owner whose card
    lies closest to the location (index 0 of the field is closest). Owners with no card
    there are not listed: they arrest nothing."""
    strength: dict[int | None, int] = {}
    closest: dict[int | None, int] = {}
    for position, card in enumerate(field):
        strength[card.owner] = strength.get(card.owner, 0) + STRENGTH[card.agent]
        closest.setdefault(card.owner, position)
    owners = sorted(strength, key=lambda owner: (-strength[owner], closest[owner]))
    return [(owner, strength[owner]) for owner in owners]


def siren_shares(
    city: CityCard, field: Sequence[FieldAgent], criminals: Criminals
) -> list[SirenShare]:
    """Who takes how many criminals at a mini-bust, in order
    (docs/house-rules.md#feds-mini-bust-shares).

    The variant: the strongest takes 2 (of different colours), the second strongest 1, ties
    broken as at the bust; the Officer takes part like a player, and only the field counts
    (never the mole). The new-orleans card: only a single strongest player takes one
    criminal; a tie for the top strength (before closeness) means nobody arrests there
    ("house_rules": mini-bust-shares)."""
    if criminals.total() == 0:
        return []
    order = arrest_order(field)
    if city.siren_arrest == "single-strongest":
        if not order or (len(order) > 1 and order[1][1] == order[0][1]):
            return []
        return [SirenShare(order[0][0], 1)]
    return [
        SirenShare(owner, share) for (owner, _), share in zip(order, SIREN_SHARES, strict=False)
    ]


def siren_take(criminals: Criminals, share: int) -> int:
    """How many criminals a share really takes: different colours, so no more than the
    number of colours still present."""
    return min(share, len(criminals.present()))


def officer_colours(criminals: Criminals, count: int) -> list[Colour]:
    """The Officer's picks: the first ``count`` colours present, in its fixed colour order."""
    return [c for c in OFFICER_COLOUR_ORDER if criminals.of(c) > 0][:count]
