"""Who is asking, and what they may do with a game: API keys and seat tokens.

API keys (client apps that create games) and seat tokens (one seat of one game) are random
bearer secrets, shown once; the server keeps only SHA-256 hashes and compares them in
constant time. A game-scoped request may carry a seat token (acting as that seat), an API
key (a spectator, or more for the key that created the game), or nothing (a spectator).

Tokens made at creation are hashed into the game's meta. A token that comes later, by an
invite's claim or by a rematch, is stored, as its SHA-256 only, in the game's seat-token
hash (``s<seat>`` -> hash, ``h<hash>`` -> seat), written by the same script that appends
the claim's events (`service.store.event_store.Batch.grants`), so a claimed seat has a
token exactly when its claim is in the stream. A leave withdraws it in the same way.

A rematch's tokens are derived, not stored: the token of seat j of the new game is
HMAC-SHA256(old seat's token, "stakeout-rematch|<new game id>"), so the holder of an old
seat's token (and nobody else: the server keeps only hashes) gets the same new token however
often it asks, from whichever API process answers.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
from dataclasses import dataclass

from service.play.errors import Forbidden, Unauthorized
from service.play.records import GameMeta, Loaded, token_hash
from service.store.clients import AnyRedis
from service.store.event_store import EventStore
from service.store.keys import events_key, seat_tokens_key

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


# The two ways an API key is missing, told apart in a 401's detail (issue 39).
NO_CREDENTIAL = "no credential was sent (use 'Authorization: Bearer <API key>')"
NOT_AN_API_KEY = "the bearer token sent is not one of this server's API keys"


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
        """The id of the API key in ``authorization``; 401 if none, saying ``needed_for`` and
        which went wrong: no credential was sent, or the one sent is no API key."""
        token = bearer(authorization)
        if token is None:
            raise Unauthorized(f"{needed_for}: {NO_CREDENTIAL}")
        key_id = self.identify(token)
        if key_id is None:
            raise Unauthorized(f"{needed_for}: {NOT_AN_API_KEY}")
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


# A seat's token hash, granted only while the game is hot (an archived game keeps its seat
# tokens in its archive: a grant written beside it would be lost).
_GRANT = """
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 's' .. ARGV[1], ARGV[2], 'h' .. ARGV[2], ARGV[1])
return 1
"""


class SeatTokens:
    """The tokens granted after creation (``game:{<id>}:seat_tokens``; an archived game's
    in its archive, read through the event store)."""

    def __init__(self, redis: AnyRedis, events: EventStore) -> None:
        self.redis = redis
        self.events = events
        self._grant = redis.register_script(_GRANT)

    async def late_seat(self, game_id: str, token: str) -> int | None:
        """The seat whose later-granted token this is (one round trip), or None."""
        digest = token_hash(token)
        raw = await self.redis.hget(seat_tokens_key(game_id), "h" + digest)
        if raw is None:
            return await self.events.archived_seat(game_id, digest)
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
        token); in an archived game, in its archive."""
        for _ in range(3):
            keys = [seat_tokens_key(game_id), events_key(game_id)]
            if await self._grant(keys=keys, args=[seat, digest]):
                return
            if await self.events.grant_archived(game_id, seat, digest) != "hot":
                return  # restored meanwhile ("hot"): granted beside its stream, next time


def owns(loaded: Loaded, api_key_id: str | None) -> bool:
    """Whether an API key (its id; None: none) is the one that created the game: the owner
    check of every creator's act, and of what only seats and the creator may see."""
    return api_key_id is not None and api_key_id == loaded.meta.owner


def rematch_token(old_token: str, new_game_id: str) -> str:
    """The new game's token for the holder of ``old_token`` (see the module docstring)."""
    mac = hmac.new(
        old_token.encode(), f"stakeout-rematch|{new_game_id}".encode(), hashlib.sha256
    ).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


class Access:
    def __init__(self, api_keys: ApiKeys, seat_tokens: SeatTokens) -> None:
        self.api_keys = api_keys
        self.seat_tokens = seat_tokens

    def api_key(self, authorization: str | None, needed_for: str) -> str:
        """The id of the API key in ``authorization``; 401 (saying ``needed_for``) if none."""
        return self.api_keys.require(authorization, needed_for)

    async def caller(self, loaded: Loaded, authorization: str | None) -> Caller:
        """A seat, an API key or nobody; a bearer that is none of these is refused (401)."""
        return await self.seat_tokens.caller_of(loaded, self.api_keys, authorization)

    async def viewer(self, loaded: Loaded, authorization: str | None) -> Caller:
        """The caller, if it may look at this game at all (private games: seats and owner)."""
        caller = await self.caller(loaded, authorization)
        if loaded.meta.private and caller.seat is None and not owns(loaded, caller.api_key_id):
            raise Forbidden("this game is private: only its seats and its creator may look")
        return caller

    async def acting_seat(
        self, loaded: Loaded, authorization: str | None, known: Caller | None = None
    ) -> int:
        """The seat of a seat token that may act in the game now; ``known``: the caller
        already told apart, by a stream ticket (a play socket's, which has no token)."""
        if known is None:
            if authorization is None:
                raise Unauthorized("a seat token is required")
            known = await self.caller(loaded, authorization)
        caller = known
        if caller.seat is None:
            raise Forbidden("only a seat token may act in a game")
        if caller.seat in loaded.match.resigned:
            raise Forbidden(f"seat {caller.seat} has resigned: a bot plays it now")
        if caller.seat in loaded.match.flagged:
            raise Forbidden(f"seat {caller.seat} ran out of time: a bot plays it now")
        return caller.seat
