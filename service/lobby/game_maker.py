"""Making a game: its seats' invites, the creator's quota of active games, and the public
lobby's listing, around the game service's creation."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace

from service.lobby.invites import InviteStore, new_codes
from service.lobby.public_lobby import PublicLobby
from service.play.game_service import GameService, NewGame
from service.play.quota import GameQuota, Slot
from service.play.records import Created


@dataclass(frozen=True)
class Made:
    created: Created
    invite_codes: dict[int, str]  # an invite code for each open seat


class GameMaker:
    def __init__(
        self, games: GameService, quota: GameQuota, invites: InviteStore, lobby: PublicLobby
    ) -> None:
        self.games = games
        self.quota = quota
        self.invites = invites
        self.lobby = lobby

    async def make(self, new: NewGame) -> Made:
        """Create the game within its creator's quota (409 `active-game-limit` beyond),
        with an invite for each open seat; a public game is listed in the lobby."""
        async with self.quota.slot(new.owner) as slot:
            return await self.make_in(slot, new)

    async def make_in(self, slot: Slot, new: NewGame) -> Made:
        """`make` within a place of the quota the caller holds already (`GameQuota.slot`):
        the matchmaker reserves it before it seats its tickets."""
        game_id = new.game_id or secrets.token_hex(12)
        seats = new.seats
        codes = {i: c for i, c in enumerate(new_codes(len(seats))) if seats[i].type == "open"}
        hashes = await self.invites.record(game_id, codes)
        created = await self.games.create(replace(new, game_id=game_id, invite_hashes=hashes))
        slot.game_id = created.game_id
        if new.public:
            await self.lobby.list_public(game_id, new.game)
        return Made(created, codes)
