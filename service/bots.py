"""One bot turn: the same code path as a client's move, with deterministic idempotency keys.

The bot is handed only its own seat's view and legal moves (`MatchEngine.bot_move`). For a
sealed step it commits, keeps its move and salt in a server-side key that no view or event
exposes, and reveals once every seat has committed.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from domain import sealed
from domain.budget import Budget
from domain.errors import DomainError
from domain.match import CommitSeal, MakeMove, Match, MatchEngine, RevealSeal
from domain.rng import Rng
from service.games import GameService
from service.redis_keys import bot_idempotency, bot_seal_key

BotTurn = Literal["moved", "committed", "revealed", "idle"]


async def play_bot_turn(
    games: GameService, game_id: str, seat: int, version: int, budget: Budget
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
    level = spec.level
    actions = [a for a in loaded.awaited if a.seat == seat]
    if not actions:
        return "idle"
    action = actions[0]
    key = bot_idempotency(seat, action.action, version)
    redis = games.store.redis

    def choose(rules: MatchEngine, match: Match, seed: bytes) -> dict[str, Any]:
        rng = Rng(seed, f"bot.{seat}.{match.version}")
        move: dict[str, Any] = msgspec.to_builtins(rules.bot_move(match, seat, level, rng, budget))
        return move

    try:
        if action.action == "move":
            await games.apply(
                game_id,
                lambda r, m, s: MakeMove(seat, choose(r, m, s)),
                idempotency_key=key,
            )
            return "moved"
        if action.action == "commit":
            seed = await games.store.seed(game_id)
            move = choose(loaded.rules, loaded.match, seed)
            salt = sealed.new_salt()
            secret = msgspec.json.encode({"move": move, "salt": salt})
            await redis.set(bot_seal_key(game_id, seat, action.step), secret, nx=True)
            kept = msgspec.json.decode(
                await redis.get(bot_seal_key(game_id, seat, action.step)) or secret
            )
            digest = sealed.commitment(game_id, action.step, seat, kept["move"], kept["salt"])
            await games.apply(
                game_id,
                lambda r, m, s: CommitSeal(seat, digest, action.step),
                idempotency_key=key,
            )
            return "committed"
        raw = await redis.get(bot_seal_key(game_id, seat, action.step))
        # No kept secret only if Redis lost data: reveal nothing valid (a forfeit) rather than
        # stall the table.
        kept = {"move": {}, "salt": sealed.new_salt()} if raw is None else msgspec.json.decode(raw)
        await games.apply(
            game_id,
            lambda r, m, s: RevealSeal(seat, kept["move"], kept["salt"]),
            idempotency_key=key,
        )
        return "revealed"
    except DomainError:
        # The game moved on between scheduling and running (another job acted first).
        return "idle"
