"""Conformance: nothing a viewer may not know reaches it.

For every game, seat count and option, and every kind of hidden information the game has
(`tests.conformance.hidden`), each seat's view and a spectator's are unchanged when the
cards hidden from that viewer are dealt differently among the places hidden from it, at
seeded random positions; and every event of the game, redacted for that viewer, is
unchanged when the event's hidden fields are dealt differently.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain.match import MatchEngine
from domain.rng import Rng
from tests.conformance.games import Config, configs, playthrough
from tests.conformance.hidden import HIDDEN, Hidden

POSITIONS = 40


def _cases() -> list[Any]:
    out = []
    for config in configs():
        for kind in HIDDEN[config.game.name]:
            if not kind.applies(config.seats, config.options):
                continue
            out.append(pytest.param(config, kind, id=f"{config.id}-{kind.name}"))
    return out


def _difference(seen: Any, other: Any) -> str:
    """The top-level fields where two views (or events) differ, for the failure message."""
    a, b = msgspec.to_builtins(seen), msgspec.to_builtins(other)
    if isinstance(a, dict) and isinstance(b, dict):
        return ", ".join(
            f"{k}: {a.get(k)!r} became {b.get(k)!r}" for k in a if a.get(k) != b.get(k)
        )
    return f"{a!r} became {b!r}"


@pytest.mark.parametrize(("config", "kind"), _cases())
def test_views_and_redacted_events_do_not_depend_on_what_the_viewer_may_not_know(
    config: Config, kind: Hidden
) -> None:
    game, rules = config.game, MatchEngine(config.game)
    play = playthrough(config)
    rng = Rng(config.seed.to_bytes(32, "big"), f"hidden {kind.name}")
    viewers: list[int | None] = [None, *range(config.seats)]
    dealt_differently = 0
    for position in play.sample(POSITIONS):
        state = position.match.state
        for viewer in viewers:
            other = kind.state(state, viewer, rng)
            dealt_differently += other != state
            seen, seen_other = game.view(state, viewer), game.view(other, viewer)
            assert seen_other == seen, (
                f"{position.where()}: viewer {viewer}'s view changed when the {kind.name} "
                f"hidden from it were dealt differently: {_difference(seen, seen_other)}"
            )
    for version, event in enumerate(play.events, start=1):
        for viewer in viewers:
            other = kind.event(event, viewer, rng)
            dealt_differently += other != event
            seen, seen_other = rules.redact(event, viewer), rules.redact(other, viewer)
            assert seen_other == seen, (
                f"{config}, event at version {version}: redacted for viewer {viewer}, it "
                f"changed when the {kind.name} hidden from it were dealt differently: "
                f"{_difference(seen, seen_other)}"
            )
    assert dealt_differently > 0, f"{config}: the {kind.name} were never dealt differently"
