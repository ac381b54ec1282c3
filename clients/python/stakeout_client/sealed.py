"""The sealed-commitment scheme, as the server checks it (docs/api-guide.md, "Sealed steps").

``hex(SHA-256(UTF-8 "sealed-v1|{game_id}|{step}|{seat}|{move}|{salt}"))`` with ``move`` the
move's JSON, keys sorted, no spaces, non-ASCII kept as is; ``salt`` 16 random bytes in hex.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from typing import Any

SCHEME = "sealed-v1"


def canonical_json(move: dict[str, Any]) -> str:
    return json.dumps(move, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def preimage(game_id: str, step: str, seat: int, move: dict[str, Any], salt: str) -> str:
    """The exact string whose SHA-256 is the commitment (a reveal-mismatch's `preimage`)."""
    return f"{SCHEME}|{game_id}|{step}|{seat}|{canonical_json(move)}|{salt}"


def commitment(game_id: str, step: str, seat: int, move: dict[str, Any], salt: str) -> str:
    return hashlib.sha256(preimage(game_id, step, seat, move, salt).encode()).hexdigest()


def new_salt() -> str:
    return secrets.token_hex(16)


@dataclass(frozen=True)
class SealedChoice:
    """A commitment made and not yet revealed: keep it until the reveal (`Seat.pending`)."""

    game_id: str
    step: str
    seat: int
    move: dict[str, Any]
    salt: str

    @property
    def commitment(self) -> str:
        return commitment(self.game_id, self.step, self.seat, self.move, self.salt)

    @property
    def preimage(self) -> str:
        return preimage(self.game_id, self.step, self.seat, self.move, self.salt)
