"""FBI (Wolfgang Kramer & Horst-Rainer Rösner), 2–5 players: HOUSE-RULES §1."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from domain.budget import TUNED, Budget
from domain.engine import Awaiting, BotLevel, HouseRule, Outcome
from domain.errors import InvalidOptions
from domain.fbi import bots, rules, scoring, views
from domain.fbi.cards import GAME_NAME, GAME_TITLE, MAX_SEATS, MIN_SEATS
from domain.fbi.commands import COMMAND_TYPES
from domain.fbi.events import EVENT_TYPES
from domain.fbi.options import FbiOptions
from domain.fbi.rulebook import HOUSE_RULES, RULES, FbiRules
from domain.fbi.state import FbiState
from domain.fbi.views import FbiView
from domain.rng import Rng


class Fbi:
    """The FBI game behind the uniform `domain.engine.Game` interface."""

    name = GAME_NAME
    title = GAME_TITLE
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    options_type = FbiOptions
    command_types = COMMAND_TYPES
    event_types = EVENT_TYPES
    view_type = FbiView
    state_type = FbiState
    rules_type = FbiRules

    def rules(self) -> FbiRules:
        return RULES

    def house_rules(self) -> list[HouseRule]:
        return list(HOUSE_RULES)

    def setup(self, options: Any, seats: int, rng: Rng) -> list[Any]:
        if not isinstance(options, FbiOptions):
            try:
                options = msgspec.convert(options, FbiOptions)
            except msgspec.ValidationError as exc:
                raise InvalidOptions(f"options: {exc}") from exc
        return list(rules.setup(options, seats, rng))

    def evolve(self, state: Any | None, event: Any) -> FbiState:
        return rules.evolve(state, event)

    def pending(self, state: Any) -> list[Awaiting]:
        return rules.pending(state)

    def legal(self, state: Any, seat: int) -> list[Any]:
        return list(rules.legal(state, seat))

    def decide(self, state: Any, seat: int, command: Any, rng: Rng) -> list[Any]:
        # FBI needs no randomness after setup: the deck order is recorded when shuffled.
        return list(rules.decide(state, seat, command))

    def view(self, state: Any, seat: int | None) -> FbiView:
        return views.view(state, seat)

    def redact(self, event: Any, seat: int | None) -> Any:
        return views.redact(event, seat)

    def result(self, state: Any) -> Outcome | None:
        if state is None or state.phase != "over":
            return None
        return scoring.outcome(scoring.scores(state.slammers, state.bonuses))

    def bot_move(
        self, level: BotLevel, view: Any, legal: Sequence[Any], rng: Rng, budget: Budget = TUNED
    ) -> Any:
        return bots.bot_move(level, view, legal, rng, budget)


GAME = Fbi()
