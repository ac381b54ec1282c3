"""A change's follow-up is a table of effects (`service.follow_ups.follow_ups.EFFECTS`):
each effect of `FollowUp` is registered once, and the order the table promises holds."""

from __future__ import annotations

import inspect

from service.follow_ups.follow_ups import EFFECTS, FollowUp


def _effects_of_the_class() -> set[str]:
    """The methods of `FollowUp` that take one change (`Followed`): its effects."""
    return {
        name
        for name, method in inspect.getmembers(FollowUp, inspect.iscoroutinefunction)
        if list(inspect.signature(method).parameters)[1:] == ["change"]
    }


def test_every_effect_is_registered_once() -> None:
    names = [effect.__name__ for effect in EFFECTS]
    assert len(names) == len(set(names))
    assert set(names) == _effects_of_the_class()
    assert "turns_and_notices" in names  # the check found the class's effects


def test_the_queue_follows_what_fills_it_and_the_turns_come_last() -> None:
    names = [effect.__name__ for effect in EFFECTS]
    assert names[-2:] == ["enqueue", "record_turns"]
