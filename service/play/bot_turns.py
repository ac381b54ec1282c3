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
from domain.match import CommitSeal, MakeMove, Match, MatchEngine, RevealSeal
from domain.rng import Rng
from service.play.game_service import GameService, Loaded
from service.store.event_store import AnyRedis
from service.store.keys import bot_idempotency, bot_seal_key

BotTurn = Literal["moved", "committed", "revealed", "idle"]


async def play_bot_turn(
    games: GameService,
    seals: BotSeals,
    game_id: str,
    seat: int,
    version: int,
    budget: Budget,
) -> BotTurn:
    """Act for bot ``seat`` if it is awaited; a retried job makes no second move.

    ``budget`` bounds an expert's search (the deployment's ``STAKEOUT_BOT_SECONDS``). A
    retry may search less or more than the attempt it replaces, and so choose differently;
    that is harmless, as the idempotency key keeps whichever move was appended first (and
    a sealed choice is kept server-side before its commitment is appended).
    """
    loaded = await games.load(game_id)
    spec = loaded.match.seats[seat]  # a resigned seat is a bot's
    if spec.type != "bot" or spec.level is None:
        return "idle"
    actions = [a for a in loaded.awaited if a.seat == seat]
    if not actions:
        return "idle"
    action = actions[0]
    bot = _Bot(games, seals, game_id, seat, spec.level, budget)
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

    def choose(self, rules: MatchEngine, match: Match, seed: bytes) -> dict[str, Any]:
        rng = Rng(seed, f"bot.{self.seat}.{match.version}")
        move = rules.bot_move(match, self.seat, self.level, rng, self.budget)
        chosen: dict[str, Any] = msgspec.to_builtins(move)
        return chosen

    async def move(self, key: str) -> BotTurn:
        seat = self.seat
        await self.games.apply(
            self.game_id,
            lambda r, m, s: MakeMove(seat, self.choose(r, m, s)),
            idempotency_key=key,
        )
        return "moved"

    async def commit(self, loaded: Loaded, step: str, key: str) -> BotTurn:
        """Choose, keep the choice and its salt server-side (the first kept wins), commit."""
        seed = await self.games.store.seed(self.game_id)
        move = self.choose(loaded.rules, loaded.match, seed)
        secret = msgspec.json.encode({"move": move, "salt": sealed.new_salt()})
        kept = msgspec.json.decode(await self.seals.keep(self.game_id, self.seat, step, secret))
        digest = sealed.commitment(self.game_id, step, self.seat, kept["move"], kept["salt"])
        seat = self.seat
        await self.games.apply(
            self.game_id, lambda r, m, s: CommitSeal(seat, digest, step), idempotency_key=key
        )
        return "committed"

    async def reveal(self, step: str, key: str) -> BotTurn:
        raw = await self.seals.kept(self.game_id, self.seat, step)
        # No kept secret only if Redis lost data: reveal nothing valid (a forfeit) rather than
        # stall the table.
        kept: dict[str, Any] = (
            {"move": {}, "salt": sealed.new_salt()} if raw is None else msgspec.json.decode(raw)
        )
        seat = self.seat
        await self.games.apply(
            self.game_id,
            lambda r, m, s: RevealSeal(seat, kept["move"], kept["salt"]),
            idempotency_key=key,
        )
        return "revealed"
