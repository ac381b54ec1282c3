"""The game list (GET /v1/games): a page of an API key's games, from their kept summaries
(no stream folded: service/views/summaries.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from service.play.errors import GameNotFound
from service.play.game_service import GameService
from service.players.player_games import PlayerGames
from service.store.event_store import EventStore
from service.views.schemas import GameName, GamePage, GameStatus, GameSummary
from service.views.summaries import GameSummaries

Cursor = tuple[int, str]  # (creation time, game id) of the last game of the previous page
# Where a listing's games come from: (cursor, count) -> (game id, creation time), newest first.
Rows = Callable[[Cursor | None, int], Awaitable[list[tuple[str, int]]]]
# A listing's index loses a game that is gone (its archive expired, or was deleted).
Forget = Callable[[str], Awaitable[None]]


@dataclass(frozen=True)
class GameFilter:
    status: GameStatus | None
    game: GameName | None
    external_id: str | None

    def admits(self, summary: GameSummary) -> bool:
        return (
            (self.status is None or summary.status == self.status)
            and (self.game is None or summary.game == self.game)
            and (
                self.external_id is None
                or any(seat.external_id == self.external_id for seat in summary.seats)
            )
        )


def parse_cursor(cursor: str | None) -> Cursor | None:
    if cursor is None:
        return None
    created_text, _, last_id = cursor.partition("-")
    return int(created_text), last_id


class GameList:
    """An API key's games: the key's index of its games (in the event store), their kept
    summaries, and the game service for a game whose summary is behind."""

    def __init__(
        self,
        store: EventStore,
        summaries: GameSummaries,
        games: GameService,
        players: PlayerGames | None = None,
    ) -> None:
        self.store = store
        self.summaries = summaries
        self.games = games
        self.players = players

    async def page(
        self, owner: str, before: Cursor | None, limit: int, wanted: GameFilter
    ) -> GamePage:
        async def rows(cursor: Cursor | None, count: int) -> list[tuple[str, int]]:
            return await self.store.owned_games(owner, cursor, count)

        async def forget(game_id: str) -> None:
            await self.store.forget_owned(owner, game_id)

        return await self._page(rows, forget, (before, limit), wanted)

    async def player_page(
        self, owner: str, before: Cursor | None, limit: int, wanted: GameFilter
    ) -> GamePage:
        """A player's games (``wanted.external_id``), from the player's own index."""
        players, external_id = self.players, wanted.external_id
        assert players is not None
        assert external_id is not None

        async def rows(cursor: Cursor | None, count: int) -> list[tuple[str, int]]:
            return await players.games(owner, external_id, cursor, count)

        async def forget(game_id: str) -> None:
            # A dead entry met here leaves the player's index (and its key's list), so no
            # later listing scans it again.
            await players.forget(owner, external_id, game_id)
            await self.store.forget_owned(owner, game_id)

        return await self._page(rows, forget, (before, limit), wanted)

    async def _page(
        self, rows: Rows, forget: Forget, window: tuple[Cursor | None, int], wanted: GameFilter
    ) -> GamePage:
        """A page of games from ``rows`` (``window``: after where, how many); ``forget``
        drops a game that is gone from their index."""
        found, after = await self._scan(rows, forget, window, wanted)
        next_cursor = None if after is None else f"{after[0]}-{after[1]}"
        return GamePage(games=found, next_cursor=next_cursor)

    async def _scan(
        self, source: Rows, forget: Forget, window: tuple[Cursor | None, int], wanted: GameFilter
    ) -> tuple[list[GameSummary], Cursor | None]:
        """The games after ``before`` that ``wanted`` admits, and where the next page starts
        (``None``: nothing more). Filters are applied to the index in order; scanning stops
        at a bounded amount of work per page (a short page with a cursor means: keep
        going)."""
        before, limit = window
        found: list[GameSummary] = []
        scanned = 0
        while len(found) < limit and scanned < 10 * limit:
            rows = await source(before, limit)
            if not rows:
                return found, None
            for kept in await self.summaries.kept(rows):
                scanned += 1
                before = (kept.created_ms, kept.game_id)
                try:
                    summary = await self.summaries.current(kept, self.games)
                except GameNotFound:  # its archive expired, or was exported and deleted
                    await forget(kept.game_id)
                    continue
                if wanted.admits(summary):
                    found.append(summary)
                if len(found) >= limit:
                    break
            if len(rows) < limit and len(found) < limit:
                return found, None
        return found, before
