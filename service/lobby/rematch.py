"""Rematch: the next game of a table that has ended.

The first ``POST /v1/games/{id}/rematch`` picks the new game's id and records it in the old
game's stream (`rematch.created`, a match act decided like any other: of concurrent
rematches exactly one is appended, the others find it), then creates the new game with that
id; every later call finds the id in the old game and creates the game only if it does not
exist yet (a process that died in between), so all callers land in the same game.

The new game has the old one's kind, options, privacy, deadline and kinds of seat, the seats
rotated by one (old seat i sits at new seat i+1, the last at 0). A seat played by a person
(human at creation, or open and claimed) is a person's again, with its name and external id;
bots stay bots of their level; an open seat filled by a bot stays that bot. The new seats'
tokens are derived from the old ones (service/play/access.py): a seat token's caller gets its
new seat's token, the same on every call; the creator's API key gets the game id only.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from domain.match import Rematch, SeatSpec
from service.lobby.public_lobby import PublicLobby
from service.play.access import SeatTokens, rematch_token
from service.play.errors import GameExists
from service.play.game_service import GameService, NewGame
from service.play.quota import GameQuota
from service.play.records import Loaded, Submission, token_hash


@dataclass(frozen=True)
class Rematched:
    game_id: str
    seat: int | None = None
    token: str | None = None


def rotated_seats(loaded: Loaded) -> list[SeatSpec]:
    """The rematch's seats: old seat i at new seat (i + 1) % n."""
    created, now = loaded.meta.seats, loaded.match.seats
    n = len(now)
    seats: list[SeatSpec] = [SeatSpec("human")] * n
    for i in range(n):
        first, current = created[i], now[i]
        if first.type == "bot" or (
            first.type == "open" and i not in loaded.match.resigned and current.type == "bot"
        ):
            spec = SeatSpec(
                "bot", current.level if first.type == "open" else first.level, current.name
            )
        else:
            spec = SeatSpec("human", None, current.name, current.external_id)
        seats[(i + 1) % n] = spec
    return seats


class Rematches:
    """Makes rematches: the game service, the creator's quota, the public lobby (a public
    game's rematch is listed too) and the seat tokens (a seat's new token)."""

    def __init__(
        self, games: GameService, quota: GameQuota, lobby: PublicLobby, seat_tokens: SeatTokens
    ) -> None:
        self.games = games
        self.quota = quota
        self.lobby = lobby
        self.seat_tokens = seat_tokens

    async def rematch(self, game_id: str, seat: int | None, token: str | None) -> Rematched:
        """The next game (made now if it is the first call) and, for a seat token's caller
        (``seat`` and its ``token``), its seat and token there."""
        loaded = await self.games.load(game_id)
        new_id = loaded.match.rematch
        if new_id is None or not await self.games.exists(new_id):
            loaded, new_id = await self._create(loaded)
        if seat is None or token is None:
            return Rematched(new_id)
        new_seat = (seat + 1) % len(loaded.match.seats)
        new_token = rematch_token(token, new_id)
        if await self.seat_tokens.late_seat(new_id, new_token) != new_seat:  # not granted yet
            await self.seat_tokens.grant_seat(new_id, new_seat, token_hash(new_token))
        return Rematched(new_id, new_seat, new_token)

    async def _create(self, loaded: Loaded) -> tuple[Loaded, str]:
        """Record the rematch's id in the old game (unless it is there) and create it."""
        async with self.quota.slot(loaded.meta.owner) as slot:
            new_id = loaded.match.rematch
            if new_id is None:
                chosen = secrets.token_hex(12)
                applied = await self.games.act(Submission(loaded.game_id, Rematch(chosen)))
                loaded = applied.loaded
                new_id = loaded.match.rematch or chosen
            meta = loaded.meta
            try:
                await self.games.create(
                    NewGame(
                        meta.owner,
                        meta.game,
                        loaded.match.options,
                        rotated_seats(loaded),
                        private=meta.private,
                        turn_seconds=meta.turn_seconds,
                        away_seconds=meta.away_seconds,
                        clock=loaded.match.clock,
                        game_id=new_id,
                        late_tokens=True,
                        public=meta.public,
                        rematch_of=loaded.game_id,
                    )
                )
                slot.game_id = new_id
                if meta.public:
                    await self.lobby.list_public(new_id, meta.game)
            except GameExists:  # another request made it meanwhile
                pass
        return loaded, new_id
