"""Who is asking, and what they may do with a game: the API keys and the seat tokens.

A game-scoped request may carry a seat token (acting as that seat), an API key (a
spectator, or more for the key that created the game), or nothing (a spectator).
"""

from __future__ import annotations

from service.play.auth import ApiKeys, Caller
from service.play.errors import Forbidden, Unauthorized
from service.play.records import Loaded
from service.play.seat_tokens import SeatTokens


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
        owner = caller.api_key_id is not None and caller.api_key_id == loaded.meta.owner
        if loaded.meta.private and caller.seat is None and not owner:
            raise Forbidden("this game is private: only its seats and its creator may look")
        return caller

    async def acting_seat(self, loaded: Loaded, authorization: str | None) -> int:
        """The seat of a seat token that may act in the game now."""
        if authorization is None:
            raise Unauthorized("a seat token is required")
        caller = await self.caller(loaded, authorization)
        if caller.seat is None:
            raise Forbidden("only a seat token may act in a game")
        if caller.seat in loaded.match.resigned:
            raise Forbidden(f"seat {caller.seat} has resigned: a bot plays it now")
        return caller.seat
