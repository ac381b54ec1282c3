"""Creation options of Bonnie and Clyde."""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.bonnie_clyde.cards import TARGET_DEFAULT, TARGET_MAX, TARGET_MIN
from domain.errors import InvalidOptions


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


def validate(options: BonnieClydeOptions) -> None:
    # The Meta bounds already reject bad targets when options arrive as JSON; this check
    # covers options built in code, which msgspec does not validate.
    if not TARGET_MIN <= options.target <= TARGET_MAX:
        raise InvalidOptions(f"target must be between {TARGET_MIN} and {TARGET_MAX}")
