"""One bot turn: the same code path as a client's move, with deterministic idempotency keys.

The bot is handed only its own seat's view and legal moves (`MatchEngine.bot_move`). For a
sealed step it commits, keeps its move and salt in a server-side key that no view or event
exposes, and reveals once every seat has committed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import msgspec

from domain import sealed
from domain.budget import Budget
from domain.engine import BotLevel
from domain.errors import DomainError
from domain.match import CommitSeal, MakeMove, RevealSeal
from domain.rng import Rng
from service.play.game_service import GameService
from service.play.records import Loaded, Submission
from service.store.clients import AnyRedis
from service.store.keys import bot_idempotency, bot_seal_key

BotTurn = Literal["moved", "committed", "revealed", "idle"]


class BotTurns:
    """Bot seats' turns: the game service, the bots' kept sealed choices, and the budget of
    an expert's search (the deployment's ``STAKEOUT_BOT_SECONDS``)."""

    def __init__(self, games: GameService, seals: BotSeals, budget: Budget) -> None:
        self.games = games
        self.seals = seals
        self.budget = budget

    async def play(self, game_id: str, seat: int, version: int) -> BotTurn:
        """Act for bot ``seat`` if it is awaited; a retried job makes no second move.

        A retry may search less or more than the attempt it replaces, and so choose
        differently; that is harmless, as the idempotency key keeps whichever move was
        appended first (and a sealed choice is kept server-side before its commitment is
        appended).
        """
        loaded = await self.games.load(game_id)
        spec = loaded.match.seats[seat]  # a resigned seat is a bot's
        if spec.type != "bot" or spec.level is None:
            return "idle"
        actions = [a for a in loaded.awaited if a.seat == seat]
        if not actions:
            return "idle"
        action = actions[0]
        bot = _Bot(self.games, self.seals, game_id, seat, spec.level, self.budget)
        key = bot_idempotency(seat, action.action, version)
        try:
            if action.action == "move":
                return await bot.move(key)
            if action.action == "commit":
                return await bot.commit(loaded, action.step, key)
            return await bot.reveal(action.step, key)
        except DomainError:
            # The game moved on between scheduling and running (another job acted first).
            return "idle"


class BotSeals:
    """The bots' kept sealed choices (``game:{<id>}:botseal:<seat>:<step>``)."""

    def __init__(self, redis: AnyRedis) -> None:
        self.redis = redis

    async def keep(self, game_id: str, seat: int, step: str, secret: bytes) -> bytes | str:
        """Keep ``secret`` unless a choice is kept already; the one kept."""
        key = bot_seal_key(game_id, seat, step)
        await self.redis.set(key, secret, nx=True)
        kept: bytes | str | None = await self.redis.get(key)
        return kept or secret

    async def kept(self, game_id: str, seat: int, step: str) -> bytes | str | None:
        raw: bytes | str | None = await self.redis.get(bot_seal_key(game_id, seat, step))
        return raw


@dataclass(frozen=True)
class _Bot:
    """One bot seat of one game, acting through the game service."""

    games: GameService
    seals: BotSeals
    game_id: str
    seat: int
    level: BotLevel
    budget: Budget

    def choose(self, loaded: Loaded, seed: bytes) -> dict[str, Any]:
        """The bot's move on ``loaded``, drawn from the game's seed (a stream of its own)."""
        rng = Rng(seed, f"bot.{self.seat}.{loaded.match.version}")
        move = loaded.engine.bot_move(loaded.match, self.seat, self.level, rng, self.budget)
        chosen: dict[str, Any] = msgspec.to_builtins(move)
        return chosen

    def _move_on(self, loaded: Loaded, seed: bytes) -> MakeMove:
        return MakeMove(self.seat, self.choose(loaded, seed))

    async def move(self, key: str) -> BotTurn:
        await self.games.act_for_bot(self.game_id, self._move_on, key)
        return "moved"

    async def commit(self, loaded: Loaded, step: str, key: str) -> BotTurn:
        """Choose, keep the choice and its salt server-side (the first kept wins), commit."""
        move = self.choose(loaded, await self.games.seed(self.game_id))
        secret = msgspec.json.encode({"move": move, "salt": sealed.new_salt()})
        kept = msgspec.json.decode(await self.seals.keep(self.game_id, self.seat, step, secret))
        digest = sealed.commitment(self.game_id, step, self.seat, kept["move"], kept["salt"])
        act = CommitSeal(self.seat, digest, step)
        await self.games.act(Submission(self.game_id, act, key=key))
        return "committed"

    async def reveal(self, step: str, key: str) -> BotTurn:
        raw = await self.seals.kept(self.game_id, self.seat, step)
        # No kept secret only if Redis lost data: reveal nothing valid (a forfeit) rather than
        # stall the table.
        kept: dict[str, Any] = (
            {"move": {}, "salt": sealed.new_salt()} if raw is None else msgspec.json.decode(raw)
        )
        act = RevealSeal(self.seat, kept["move"], kept["salt"])
        await self.games.act(Submission(self.game_id, act, key=key))
        return "revealed"
