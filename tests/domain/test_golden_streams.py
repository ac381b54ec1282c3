"""Games recorded before a change still load, and the same seeds still play the same games.

The streams under ``streams/`` were written by the code of their commit (see
`tests.domain.golden`): the events as the service stores them, and what each seat saw. A
refactoring of the games must leave both alone: the stored events decode and fold into the
same views, legal moves, awaited seats, redacted events and results, and bots given the
same seeds make the same choices, event for event.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from domain.match import event_union
from tests.domain.golden import GOLDEN, Golden, as_json, engine, play, record


def _as_recorded(now: Any, recorded: Any) -> Any:
    """``now`` without the fields added after the recording that hold their default (null):
    a seat's ``name`` and ``external_id`` came with the lobby (issue 16), and a stream written
    before shows them as null. Any other difference, a non-null new field included, stays."""
    if isinstance(now, dict) and isinstance(recorded, dict):
        return {
            key: _as_recorded(value, recorded.get(key))
            for key, value in now.items()
            if key in recorded or value is not None
        }
    if isinstance(now, list) and isinstance(recorded, list) and len(now) == len(recorded):
        return [_as_recorded(a, b) for a, b in zip(now, recorded, strict=True)]
    return now


def _stored(golden: Golden) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(golden.path.read_text())
    return data


@pytest.mark.parametrize("golden", GOLDEN, ids=lambda g: g.path.stem)
def test_a_stream_stored_before_the_change_loads_and_shows_the_same(golden: Golden) -> None:
    stored = _stored(golden)
    rules = engine(golden)
    decoder = msgspec.json.Decoder(event_union(rules.game))
    events = [decoder.decode(json.dumps(event)) for event in stored["events"]]
    assert _as_recorded(as_json(record(rules, events, stored["opening"])), stored) == stored


@pytest.mark.parametrize("golden", GOLDEN, ids=lambda g: g.path.stem)
def test_the_same_seed_plays_the_same_game(golden: Golden) -> None:
    events, opening = play(golden)
    stored = _stored(golden)
    assert opening == stored["opening"]
    assert _as_recorded(as_json(events), stored["events"]) == stored["events"]
