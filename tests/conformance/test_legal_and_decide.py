"""Conformance: ``legal`` and ``decide`` agree, for every game, seat count and option.

At seeded random positions of each configuration's playthrough, every command ``legal``
offers is accepted by ``decide``, and every command it does not offer — the other seats',
other steps' and phases', other games', and every field mutation of a legal one — is
refused with a `domain.errors.DomainError`, never another exception. ``decide`` changes
nothing (states are pure data). A command outside ``legal`` that ``decide`` accepts is
tolerated only as an *alias*: its events lead to exactly the state a legal command's
events lead to (the same move spelled differently: FBI's two agents, or the two locations
of a Feds siren swap, in the other order); anything else fails.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain.errors import DomainError
from domain.match import MakeMove, MatchEngine
from domain.rng import Rng
from tests.conformance.commands import foreign, key, mutations, pool
from tests.conformance.games import Config, Position, config_ids, configs, playthrough

CONFIGS = configs()
#: Positions per playthrough; other steps' commands tried per seat and position.
POSITIONS = 16
FROM_OTHER_STEPS = 6


def _decide(position: Position, seat: int, command: Any) -> list[Any]:
    rng = Rng(position.config.seed.to_bytes(32, "big"), f"decide{position.version}")
    return position.config.game.decide(position.match.state, seat, command, rng)


def _fold(position: Position, events: list[Any]) -> Any:
    state = position.match.state
    for event in events:
        state = position.config.game.evolve(state, event)
    return state


@pytest.mark.parametrize("config", CONFIGS, ids=config_ids(CONFIGS))
def test_every_legal_command_is_accepted_by_decide(config: Config) -> None:
    game = config.game
    checked = 0
    for position in playthrough(config).sample(POSITIONS):
        state = position.match.state
        awaited = {p.seat for p in game.pending(state)}
        over = game.result(state) is not None
        assert not (over and awaited), f"{position.where()}: over, yet {awaited} are awaited"
        for seat in range(config.seats):
            legal = game.legal(state, seat)
            where = f"{position.where()}, seat {seat}"
            assert bool(legal) == (seat in awaited), f"{where}: legal is {legal}, awaited {awaited}"
            for command in legal:
                try:
                    events = _decide(position, seat, command)
                except Exception as exc:
                    pytest.fail(f"{where}: legal {command} refused: {type(exc).__name__}: {exc}")
                assert events, f"{where}: legal {command} produced no events"
                checked += 1
    assert checked >= POSITIONS


def _candidates(config: Config, position: Position, seat: int, rng: Rng) -> list[Any]:
    """Commands to try on ``seat`` here: mutations of its legal commands, the other seats'
    legal commands, some of the game's commands from other positions, and other games'."""
    state = position.match.state
    out: list[Any] = []
    for other in range(config.seats):
        for command in config.game.legal(state, other):
            out += mutations(command) if other == seat else [command]
    everything = pool(config)
    out += [rng.choice(everything) for _ in range(min(FROM_OTHER_STEPS, len(everything)))]
    return out + foreign(config.game.name)


def _malformed(legal: list[Any]) -> list[dict[str, Any]]:
    """JSON no command decodes from: an unknown tag, no tag, a field of the wrong type."""
    out: list[dict[str, Any]] = [{"type": "no.such.move"}, {"card": 1}]
    for command in legal:
        data = msgspec.to_builtins(command)
        fields = [name for name in data if name != "type"]
        if fields:
            out.append({**data, fields[0]: {"not": "this"}})
    return out


@pytest.mark.parametrize("config", CONFIGS, ids=config_ids(CONFIGS))
def test_commands_not_in_legal_are_refused_with_a_domain_error(config: Config) -> None:
    game = config.game
    rules = MatchEngine(game)
    seed = config.seed.to_bytes(32, "big")
    rng = Rng(seed, "candidates")
    refused = 0
    for position in playthrough(config).sample(POSITIONS):
        state = position.match.state
        before = msgspec.msgpack.encode(state)
        for seat in range(config.seats):
            legal = game.legal(state, seat)
            offered = {key(c) for c in legal}
            tried: set[bytes] = set()
            outcomes: list[Any] = []  # the states legal commands lead to, when needed
            for command in _candidates(config, position, seat, rng):
                if key(command) in offered or key(command) in tried:
                    continue
                tried.add(key(command))
                where = f"{position.where()}, seat {seat}, command {command!r}"
                try:
                    events = _decide(position, seat, command)
                except DomainError:
                    refused += 1
                    continue
                except Exception as exc:
                    pytest.fail(
                        f"{where}: refused with {type(exc).__name__}: {exc}, not a DomainError"
                    )
                outcomes = outcomes or [_fold(position, _decide(position, seat, c)) for c in legal]
                assert _fold(position, events) in outcomes, (
                    f"{where}: accepted although legal does not offer it: {events}"
                )
            # Through the match layer, as a client's JSON: other games' moves and malformed
            # ones are refused by the same typed errors.
            for data in [*(msgspec.to_builtins(c) for c in foreign(game.name)), *_malformed(legal)]:
                with pytest.raises(DomainError):
                    rules.perform(position.match, MakeMove(seat, data), seed)
        assert msgspec.msgpack.encode(state) == before, f"{position.where()}: decide changed it"
    assert refused > POSITIONS
