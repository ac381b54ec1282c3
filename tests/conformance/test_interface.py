"""Conformance: each game fits the uniform interface the service builds its contract from.

The service turns every registered game's commands, events, views and rules into tagged
unions (service/views/schemas.py); these tests build the same unions with the example
game added, as registering a fourth game would, and check what creation refuses.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain.engine import AnyGame, HouseRule
from domain.errors import InvalidOptions
from domain.match import MATCH_EVENT_TYPES, MatchEngine, SeatSpec
from tests.conformance.games import all_games, configs, playthrough

GAMES = all_games()
IDS = [g.name for g in GAMES]
SEED = bytes(32)


def _union(types: list[type[msgspec.Struct]]) -> Any:
    union: Any = types[0]
    for t in types[1:]:
        union = union | t
    return union


def _tag(struct: type[msgspec.Struct]) -> Any:
    return msgspec.inspect.type_info(struct).tag  # type: ignore[attr-defined]


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_game_publishes_tagged_types_and_a_rules_document(game: AnyGame) -> None:
    assert game.min_seats <= game.max_seats
    assert _tag(game.view_type) == game.name, "the view is tagged with the game's name"
    for struct in (*game.command_types, *game.event_types):
        info = msgspec.inspect.type_info(struct)
        assert isinstance(info, msgspec.inspect.StructType)
        assert info.tag_field == "type", struct.__name__
        assert struct.__struct_config__.frozen, struct.__name__
        assert isinstance(info.tag, str), struct.__name__
        assert "." in info.tag, f"{info.tag}: tags are prefixed with the game (fbi.release)"
    rules = game.rulebook()
    assert isinstance(rules, game.rulebook_type)
    assert msgspec.json.decode(msgspec.json.encode(rules), type=game.rulebook_type) == rules
    house = game.house_rules()
    assert all(isinstance(rule, HouseRule) for rule in house), "house rules are HouseRule"
    assert len({rule.id for rule in house}) == len(house), "house rule ids are unique"


def test_every_game_s_commands_events_and_views_form_one_tagged_union() -> None:
    commands = [t for g in GAMES for t in g.command_types]
    events = [*MATCH_EVENT_TYPES, *(t for g in GAMES for t in g.event_types)]
    tags = [_tag(t) for t in commands + events]
    assert len(tags) == len(set(tags)), "a tag is used twice"
    decode_event = msgspec.json.Decoder(_union(events)).decode
    msgspec.json.Decoder(_union(commands))
    msgspec.json.Decoder(_union([g.view_type for g in GAMES]))
    for game in GAMES:
        first = next(c for c in configs() if c.game is game)
        for event in playthrough(first).events:
            assert decode_event(msgspec.json.encode(event)) == event, f"{game.name}: {event!r}"


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_creation_takes_every_seat_count_and_refuses_others_and_unknown_options(
    game: AnyGame,
) -> None:
    rules = MatchEngine(game)
    for seats in range(game.min_seats, game.max_seats + 1):
        match = rules.replay(rules.create("g", {}, [SeatSpec("human")] * seats, SEED))
        assert rules.awaiting(match), f"{game.name}, {seats} seats: nobody is awaited"
    for seats in (game.min_seats - 1, game.max_seats + 1):
        with pytest.raises(InvalidOptions):
            rules.create("g", {}, [SeatSpec("human")] * seats, SEED)
    with pytest.raises(InvalidOptions):
        rules.create("g", {"no_such_option": 1}, [SeatSpec("human")] * game.min_seats, SEED)
