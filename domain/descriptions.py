"""What the contract (OpenAPI) says of a fact many wire types carry, written once: a
field that carries one is ``Annotated[str, doc(GAME_ID)]``. These are the ones types of
every layer share (the replay's are the domain's); the views' own are in
service/views/descriptions.py."""

from __future__ import annotations

GAME_ID = "The game's id (24 hex digits), returned at creation."
GAME_NAME = "The game: fbi, feds (The Feds) or bonnie_clyde (Bonnie and Clyde)."
AT_MS = "When it was stored (epoch milliseconds, server clock)."
