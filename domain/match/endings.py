"""The end of a game: the recorded result, or an end without one (abandoned, aborted)."""

from __future__ import annotations

from typing import Any

from domain.engine import AnyGame
from domain.errors import GameOver, WrongPhase
from domain.match.acts import Abandon, Abort, RecordResult
from domain.match.events import GameAbandoned, GameAborted, ResultRecorded
from domain.match.state import Match


def record_result(game: AnyGame, match: Match, act: RecordResult, seed: bytes) -> list[Any]:
    """The scoring job's act: the final result, recorded once."""
    outcome = game.result(match.state)
    if outcome is None:
        raise WrongPhase("the game is not over")
    if match.recorded is not None:
        return []
    return [ResultRecorded(scores=outcome.scores, winners=outcome.winners, places=outcome.places)]


def abandon(game: AnyGame, match: Match, act: Abandon, seed: bytes) -> list[Any]:
    """End an idle game without a result (once; a finished game is not abandoned)."""
    if game.result(match.state) is not None:
        raise GameOver("the game is over")
    if match.abandoned or match.aborted:
        return []
    return [GameAbandoned(idle_seconds=act.idle_seconds)]


def abort(game: AnyGame, match: Match, act: Abort, seed: bytes) -> list[Any]:
    """The creator ends an unfinished game without a result."""
    if game.result(match.state) is not None:
        raise GameOver("the game is over")
    if match.aborted or match.abandoned:
        raise GameOver("the game has ended already")
    return [GameAborted()]
