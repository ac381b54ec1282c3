"""The sealed-commitment scheme (contract).

A seat commits ``hex(SHA-256(UTF-8 "sealed-v1|{game_id}|{step}|{seat}|{move}|{salt}"))``
where ``move`` is the canonical JSON of the move (keys sorted, no spaces) and ``salt`` is
16 to 64 random bytes as lowercase hex (32 to 128 digits), hashed as that text. Binding
game, step and seat stops a copied commitment.

Reference recipe for clients (any language)::

    move = json.dumps(move_obj, sort_keys=True, separators=(",", ":"))
    salt = secrets.token_hex(16)
    commitment = sha256(f"sealed-v1|{game_id}|{step}|{seat}|{move}|{salt}".encode()).hexdigest()
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from typing import Any

SCHEME = "sealed-v1"
MIN_SALT_BYTES = 16


def canonical_json(move: Any) -> str:
    """Keys sorted, no spaces, non-ASCII kept as is (UTF-8 is hashed)."""
    return json.dumps(move, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def preimage(game_id: str, step: str, seat: int, move: Any, salt: str) -> str:
    """The exact string whose SHA-256 is the commitment."""
    return f"{SCHEME}|{game_id}|{step}|{seat}|{canonical_json(move)}|{salt}"


def commitment(game_id: str, step: str, seat: int, move: Any, salt: str) -> str:
    """The commitment a seat posts for ``move`` (a JSON-able object) with ``salt`` (hex)."""
    return hashlib.sha256(preimage(game_id, step, seat, move, salt).encode()).hexdigest()


def new_salt() -> str:
    return secrets.token_hex(MIN_SALT_BYTES)


def salt_is_valid(salt: str) -> bool:
    if len(salt) < 2 * MIN_SALT_BYTES or len(salt) % 2:
        return False
    try:
        bytes.fromhex(salt)
    except ValueError:
        return False
    return True


def matches(expected: str, game_id: str, step: str, seat: int, move: Any, salt: str) -> bool:
    """Constant-time check of a reveal against its commitment."""
    actual = commitment(game_id, step, seat, move, salt)
    return hmac.compare_digest(actual.encode(), expected.encode())
