"""Creation options of Bonnie and Clyde."""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.bonnie_clyde.cards import TARGET_DEFAULT, TARGET_MAX, TARGET_MIN


class BonnieClydeOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``target``: hands are played until, after a hand, someone has at least this total."""

    target: Annotated[
        int,
        msgspec.Meta(
            ge=TARGET_MIN,
            le=TARGET_MAX,
            description="Points that end the game (10 to 500, default 100): hands are played "
            "until, after a hand, one seat alone has the highest total at or above it.",
        ),
    ] = TARGET_DEFAULT
