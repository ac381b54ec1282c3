"""Creation options of The Feds."""

from __future__ import annotations

import msgspec

from domain.feds.cards import City


class FedsOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``city``: the house city card. ``sirens``: the rulebook's New Orleans variant (one
    siren token per location); refused with the new-orleans card, which has sirens already.
    The badge's starting seat is drawn at setup and recorded in the setup event."""

    city: City = "chicago"
    sirens: bool = False
