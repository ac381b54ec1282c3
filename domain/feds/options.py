"""Creation options of The Feds."""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.engine import doc
from domain.feds.cards import City


class FedsOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``city``: the house city card. ``sirens``: the rulebook's New Orleans variant (one
    siren token per location); refused with the new-orleans card, which has sirens already.
    The badge's starting seat is drawn at setup and recorded in the setup event."""

    city: Annotated[City, doc("The house city card (see `city_cards` in the rules).")] = "chicago"
    sirens: Annotated[
        bool,
        doc("The New Orleans variant: one siren token per location (not with new-orleans)."),
    ] = False
