"""What the contract (OpenAPI) says of a fact several of the views' wire types carry,
written once. Each field carries its description itself (``Annotated[int, doc(VERSION)]``)
and each type's docstring is its schema's description (service/views/schemas.py says how);
the phrases types below the views share too are in domain/descriptions.py."""

from __future__ import annotations

VERSION = (
    "The game's version: the number of events in its log (1 after creation). It grows by "
    "one per event, so it orders everything that happened; it is also the ETag."
)
AWAITING = (
    "Every seat the game waits for now and what it must do (move, commit or reveal); "
    "empty when the game is over, abandoned or aborted. Several seats at once in a sealed step."
)
STATUS = (
    "waiting: a seat is open (nobody may act until every seat is claimed or filled); "
    "active: being played; finished: over, with a result; abandoned: ended by the sweep "
    "after nobody acted for STAKEOUT_ABANDON_SECONDS, without a result; aborted: ended by "
    "its creator without a result."
)
SEATS = "Who plays each seat, indexed by seat number."
RESULT = (
    "The final result once the game is over; null before (and for an abandoned or aborted game)."
)
SEAT_NUMBER = "The seat number (0-based, in creation order)."
BOT_LEVEL_OR_NULL = "The bot's level for a bot seat, null for a human seat."
SEAT_NAME = "The seat's display name (up to 40 characters), or null."
EXTERNAL_ID = (
    "The client backend's own id of the seat's player (up to 200 characters), or null. "
    "Seen by everyone who may see the game: not a secret."
)
# What a request may say of who sits at a seat (service/play/identities.py, the one rule).
NAME_RULE = (
    "No control characters (NUL, newline, BEL, ...) and no bidirectional formatting "
    "characters (U+202E, ...): 422 `invalid-name`."
)
EXTERNAL_ID_RULE = (
    "Never empty, no `/`, no control characters and no bidirectional formatting "
    "characters: 422 `invalid-external-id`."
)
SEAT_NAME_GIVEN = f"The seat's display name (up to 40 characters), or null. {NAME_RULE}"
