"""Conformance: every bot level plays a legal move knowing only its seat's view.

For every game, seat count and option, at seeded random positions where a seat has a move
(or a sealed choice) to make, each such seat's bot
of each level is handed its view as a client receives it (JSON, decoded as the game's view
type) and the legal list, and must return an item of that list. The expert runs on the
smallest budget (its minimum sample count): the property is legality, not strength.
"""

from __future__ import annotations

import msgspec
import pytest

from domain.budget import Budget
from domain.engine import BotLevel
from domain.match import MatchEngine
from domain.rng import Rng
from tests.conformance.games import Config, Position, config_ids, configs, playthrough

CONFIGS = configs()
POSITIONS = 6
LEVELS: tuple[BotLevel, ...] = ("random", "greedy", "expert")
SMALLEST = Budget(effort=0.001)


@pytest.mark.parametrize("config", CONFIGS, ids=config_ids(CONFIGS))
def test_every_bot_level_returns_a_legal_move_from_the_view_alone(config: Config) -> None:
    game, rules = config.game, MatchEngine(config.game)
    decoder = msgspec.json.Decoder(game.view_type)
    moves = 0

    def moving(position: Position) -> bool:
        return any(rules.legal(position.match, seat) for seat in range(config.seats))

    for position in playthrough(config).sample(POSITIONS, where=moving):
        for seat in range(config.seats):
            legal = rules.legal(position.match, seat)
            if not legal:
                continue
            view = decoder.decode(msgspec.json.encode(game.view(position.match.state, seat)))
            for level in LEVELS:
                rng = Rng(config.seed.to_bytes(32, "big"), f"bot {level} {position.version}")
                move = game.bot_move(level, view, list(legal), rng, SMALLEST)
                assert move in legal, (
                    f"{position.where()}, seat {seat}: the {level} bot chose {move!r}, "
                    f"not an item of legal"
                )
                moves += 1
    assert moves >= len(LEVELS) * POSITIONS, f"{config}: too few bot moves checked"
