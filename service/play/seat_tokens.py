"""Seat tokens granted after a game was created: by an invite's claim, or by a rematch.

Tokens made at creation are hashed into the game's meta (service/play/auth.py). A token that
comes later is stored, as its SHA-256 only, in the game's seat-token hash (``s<seat>`` ->
hash, ``h<hash>`` -> seat), written by the same script that appends the claim's events
(`EventStore.append` with ``grants``), so a claimed seat has a token exactly when its
claim is in the stream. A leave withdraws it in the same way.

A rematch's tokens are derived, not stored: the token of seat j of the new game is
HMAC-SHA256(old seat's token, "stakeout-rematch|<new game id>"), so the holder of an old
seat's token (and nobody else: the server keeps only hashes) gets the same new token however
often it asks, from whichever API process answers.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from service.play.auth import ApiKeys, Caller, bearer, caller_for, seat_of
from service.play.records import Loaded, token_hash
from service.store.clients import AnyRedis
from service.store.keys import seat_tokens_key


class SeatTokens:
    """The tokens granted after creation (``game:{<id>}:seat_tokens``)."""

    def __init__(self, redis: AnyRedis) -> None:
        self.redis = redis

    async def late_seat(self, game_id: str, token: str) -> int | None:
        """The seat whose later-granted token this is (one round trip), or None."""
        raw = await self.redis.hget(seat_tokens_key(game_id), "h" + token_hash(token))
        if raw is None:
            return None
        return int(raw.decode() if isinstance(raw, bytes) else raw)

    async def caller_of(self, loaded: Loaded, keys: ApiKeys, authorization: str | None) -> Caller:
        """Who is asking: a seat (a token made at creation or granted later), an API key,
        or nobody (no Authorization). A bearer that is none of these is refused (401)."""
        if loaded.meta.late_tokens:  # a seat claimed or granted after creation?
            token = bearer(authorization)
            if token is not None and seat_of(loaded.meta, token) is None:
                seat = await self.late_seat(loaded.game_id, token)
                if seat is not None:
                    return Caller(seat=seat)
        return caller_for(loaded.meta, keys, authorization)

    async def grant_seat(self, game_id: str, seat: int, digest: str) -> None:
        """Record ``digest`` as ``seat``'s token hash (idempotent: a rematch's derived
        token)."""
        await self.redis.hset(
            seat_tokens_key(game_id), mapping={f"s{seat}": digest, f"h{digest}": seat}
        )


def rematch_token(old_token: str, new_game_id: str) -> str:
    """The new game's token for the holder of ``old_token`` (see the module docstring)."""
    mac = hmac.new(
        old_token.encode(), f"stakeout-rematch|{new_game_id}".encode(), hashlib.sha256
    ).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")
