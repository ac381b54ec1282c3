"""Creation options of an FBI game."""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.engine import doc
from domain.fbi.cards import Variant


class FbiOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Creation options of an FBI game."""

    variant: Annotated[
        Variant,
        doc(
            "Which character an agent arrests: base, the highest value of its colour on the "
            "table; stacked, the top card of its colour's pile (the one placed last)."
        ),
    ] = "base"
