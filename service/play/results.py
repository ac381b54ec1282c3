"""Recording a finished game's result, once (the scoring job's work)."""

from __future__ import annotations

from domain.errors import DomainError
from domain.match import RecordResult
from service.play.game_service import GameService
from service.play.records import Submission
from service.play.stats import StatsStore
from service.store.keys import RESULT_IDEMPOTENCY


async def record_result(games: GameService, stats: StatsStore, game_id: str) -> str:
    """Record the game's result (an act, once: retries answer the first) and count it in
    its API key's statistics (once per game, also when a retry of a job that recorded the
    result and died before counting it comes here: `StatsStore.count_result` is
    idempotent). Says what it did."""
    try:
        applied = await games.act(Submission(game_id, RecordResult(), key=RESULT_IDEMPOTENCY))
    except DomainError as exc:
        return f"not scored: {exc.detail}"
    loaded = await games.load(game_id)
    outcome = loaded.match.recorded
    if outcome is not None:
        meta = loaded.meta
        await stats.count_result(meta.owner, game_id, meta.game, meta.seats, outcome.winners)
    return "recorded" if applied.events and not applied.replayed else "already recorded"
