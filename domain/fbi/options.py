"""Creation options of an FBI game."""

from __future__ import annotations

import msgspec

from domain.fbi.cards import Variant


class FbiOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``variant``: "base" takes the highest card of a colour, "stacked" the top of its pile."""

    variant: Variant = "base"
