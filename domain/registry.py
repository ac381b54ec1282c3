"""The games this server knows, by name. The only place that lists them."""

from __future__ import annotations

from domain.engine import AnyGame
from domain.match import MatchEngine

_GAMES: dict[str, AnyGame] = {}


def _load() -> dict[str, AnyGame]:
    if not _GAMES:
        from domain.bonnie_clyde import GAME as BONNIE_CLYDE
        from domain.fbi import GAME as FBI
        from domain.feds import GAME as FEDS

        for game in (FBI, FEDS, BONNIE_CLYDE):
            _GAMES[game.name] = game
    return _GAMES


def names() -> list[str]:
    return list(_load())


def games() -> list[AnyGame]:
    return list(_load().values())


def get(name: str) -> AnyGame | None:
    return _load().get(name)


def engine_for(name: str) -> MatchEngine | None:
    game = get(name)
    return MatchEngine(game) if game is not None else None
