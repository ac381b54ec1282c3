"""API keys (client apps that create games) and seat tokens (one seat of one game).

Both are random bearer secrets, shown once; the server keeps only SHA-256 hashes and
compares them in constant time. A game-scoped request may carry a seat token (acting as
that seat), an API key (a spectator, or more for the key that created the game), or
nothing (a spectator).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
from dataclasses import dataclass

from service.play.errors import Unauthorized
from service.play.records import GameMeta, token_hash

__all__ = ["ApiKeys", "Caller", "Unauthorized", "bearer", "caller_for", "seat_of"]


# A bearer token's SHA-256, per process, for the tokens seen lately: every request of a
# seat or key hashed its token again (the hash is what is kept and compared; the
# comparison itself stays constant-time on every request).
_digest = functools.lru_cache(maxsize=4096)(token_hash)


@dataclass(frozen=True)
class Caller:
    seat: int | None = None
    api_key_id: str | None = None


def bearer(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header (None when absent)."""
    if authorization is None:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > 512:
        raise Unauthorized("use 'Authorization: Bearer <token>'")
    return token


class ApiKeys:
    def __init__(self, keys: tuple[str, ...]) -> None:
        self._hashes = [token_hash(k) for k in keys]
        self._ids = {h: hashlib.sha256(h.encode()).hexdigest()[:16] for h in self._hashes}

    def identify(self, token: str) -> str | None:
        """The key's stable id (a hash prefix) when ``token`` is a valid API key."""
        digest = _digest(token)
        found = False
        for known in self._hashes:  # no early exit: the time does not depend on the match
            found |= hmac.compare_digest(digest, known)
        return self._ids[digest] if found else None

    def require(self, authorization: str | None, needed_for: str) -> str:
        """The id of the API key in ``authorization``; 401 (saying ``needed_for``) if none."""
        token = bearer(authorization)
        key_id = self.identify(token) if token else None
        if key_id is None:
            raise Unauthorized(needed_for)
        return key_id


def seat_of(meta: GameMeta, token: str) -> int | None:
    digest = _digest(token)
    seat: int | None = None
    for index, known in enumerate(meta.token_hashes):
        if known is not None and hmac.compare_digest(digest, known):
            seat = index
    return seat


def caller_for(meta: GameMeta, keys: ApiKeys, authorization: str | None) -> Caller:
    token = bearer(authorization)
    if token is None:
        return Caller()
    seat = seat_of(meta, token)
    if seat is not None:
        return Caller(seat=seat)
    key_id = keys.identify(token)
    if key_id is not None:
        return Caller(api_key_id=key_id)
    raise Unauthorized("the token is not valid for this game")
