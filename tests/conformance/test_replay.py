"""Conformance: a game's events are its whole truth.

For every game, seat count and option: the events, round-tripped through JSON (as the
store keeps them), rebuild the same match at every sampled position and at the end; and
the finished game, with the act behind each batch of events, verifies
(`domain.verify.verify`: the seed, every deal, every act re-run, the result).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from domain import registry
from domain.match import MatchEngine, event_union
from domain.rng import seed_commitment
from domain.verify import ReplayDocument, ReplayRecord, verify
from tests.conformance.games import Config, Playthrough, config_ids, configs, playthrough

CONFIGS = configs()
POSITIONS = 12


@pytest.mark.parametrize("config", CONFIGS, ids=config_ids(CONFIGS))
def test_events_round_tripped_through_json_rebuild_the_same_state(config: Config) -> None:
    rules = MatchEngine(config.game)
    play = playthrough(config)
    decoder = msgspec.json.Decoder(list[event_union(config.game)])  # type: ignore[misc]
    decoded = decoder.decode(msgspec.json.encode(play.events))
    assert decoded == play.events, f"{config}: the events do not survive JSON"
    for position in play.sample(POSITIONS):
        rebuilt = rules.replay(decoded[: position.count])
        assert rebuilt == position.match, f"{position.where()}: replay rebuilt another match"
    final = rules.replay(decoded)
    assert rules.result(final) is not None, f"{config}: the replayed game is not over"
    assert final.recorded == rules.result(final), f"{config}: the recorded result differs"


@pytest.fixture
def registered(config: Config) -> Iterator[None]:
    """`verify` finds games in the registry; the example game is added for the test, as a
    fourth game would be for good (one line in `domain.registry._load`)."""
    games = registry._load()
    added = config.game.name not in games
    if added:
        games[config.game.name] = config.game
    try:
        yield
    finally:
        if added:
            del games[config.game.name]


def replay_document(play: Playthrough) -> ReplayDocument:
    """What ``GET /v1/games/{id}/replay`` serves: every event, each batch's act on its
    first event, and the seed."""
    acts = dict(play.acts)
    records = []
    for index, event in enumerate(play.events):
        act: Any = msgspec.to_builtins(acts[index]) if index in acts else None
        records.append(ReplayRecord(index + 1, msgspec.to_builtins(event), act))
    created = play.events[0]
    return ReplayDocument(
        game_id=created.game_id,
        game=play.config.game.name,
        seed=play.seed.hex(),
        seed_commitment=seed_commitment(play.seed),
        events=records,
    )


@pytest.mark.parametrize("config", CONFIGS, ids=config_ids(CONFIGS))
@pytest.mark.usefixtures("registered")
def test_a_finished_game_verifies(config: Config) -> None:
    play = playthrough(config)
    document = msgspec.convert(
        msgspec.json.decode(msgspec.json.encode(replay_document(play))), ReplayDocument
    )
    verified = verify(document)
    outcome = MatchEngine(config.game).result(play.final.match)
    assert outcome is not None
    assert (verified.scores, verified.winners) == (outcome.scores, outcome.winners), str(config)
    assert verified.acts == len(play.acts), str(config)
