"""Drive whole games through the match layer with seeded random choices.

Shared by every game's random-playthrough test: sealed steps go through real commitments
and reveals, every decision's events are checked against ``legal``, and the caller gets the
full event list to check its own invariants (cards conserved, scores recomputed…).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from domain import sealed
from domain.engine import AnyGame
from domain.match import CommitSeal, Match, MatchEngine, RevealSeal, SeatSpec
from domain.rng import Rng

MAX_DECISIONS = 20_000


def play(
    game: AnyGame,
    options: dict[str, Any],
    n_seats: int,
    seed: int,
    chooser: Callable[[MatchEngine, Match, int, list[Any], Rng], Any] | None = None,
    on_event: Callable[[Match, Any], None] | None = None,
) -> tuple[Match, list[Any]]:
    """Play one game to the end; return the final match and every event, in order."""
    rules = MatchEngine(game)
    seed_bytes = seed.to_bytes(32, "big")
    rng = Rng(seed_bytes, "players")
    events = rules.create(f"g{seed}", options, [SeatSpec("human")] * n_seats, seed_bytes)
    match = rules.replay(events)

    def apply(new: list[Any]) -> None:
        nonlocal match
        for event in new:
            match = rules.fold(match, event)
            if on_event is not None:
                on_event(match, event)
        events.extend(new)

    secret: dict[int, tuple[dict[str, Any], str]] = {}
    for _ in range(MAX_DECISIONS):
        if rules.result(match) is not None:
            return match, events
        awaiting = rules.awaiting(match)
        assert awaiting, "the game is not over but nobody is awaited"
        action = awaiting[0]
        seat = action.seat
        if action.action == "reveal":
            move, salt = secret.pop(seat)
            apply(rules.perform(match, RevealSeal(seat, move, salt), seed_bytes))
            continue
        legal = rules.legal(match, seat)
        assert legal, f"seat {seat} is awaited for {action.step} with no legal move"
        command = chooser(rules, match, seat, legal, rng) if chooser else rng.choice(legal)
        if action.action == "commit":
            move = msgspec.to_builtins(command)
            salt = sealed.new_salt()
            secret[seat] = (move, salt)
            digest = sealed.commitment(match.game_id, action.step, seat, move, salt)
            apply(rules.perform(match, CommitSeal(seat, digest, action.step), seed_bytes))
        else:
            apply(rules.move(match, seat, command, seed_bytes))
    raise AssertionError("the game did not end")
