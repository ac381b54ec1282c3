"""FBI (Wolfgang Kramer & Horst-Rainer Rösner), 2–5 players: HOUSE-RULES §1."""

from __future__ import annotations

from collections.abc import Sequence

from domain.budget import TUNED, Budget
from domain.engine import Awaiting, BotLevel, Game, HouseRule, Outcome
from domain.fbi import bots, rules, scoring, views
from domain.fbi.cards import GAME_NAME, GAME_TITLE, MAX_SEATS, MIN_SEATS
from domain.fbi.commands import COMMAND_TYPES, FbiCommand
from domain.fbi.events import EVENT_TYPES, FbiEvent
from domain.fbi.evolve import evolve
from domain.fbi.options import FbiOptions
from domain.fbi.rulebook import HOUSE_RULES, RULES, FbiRules
from domain.fbi.state import FbiState
from domain.fbi.views import FbiView
from domain.kit import ranking
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
    rulebook_type = FbiRules

    def rulebook(self) -> FbiRules:
        return RULES

    def house_rules(self) -> list[HouseRule]:
        return list(HOUSE_RULES)

    def setup(self, options: FbiOptions, seats: int, rng: Rng) -> list[FbiEvent]:
        return rules.setup(options, seats, rng)

    def evolve(self, state: FbiState | None, event: FbiEvent) -> FbiState:
        return evolve(state, event)

    def pending(self, state: FbiState) -> list[Awaiting]:
        return rules.pending(state)

    def legal(self, state: FbiState, seat: int) -> list[FbiCommand]:
        return rules.legal(state, seat)

    def decide(self, state: FbiState, seat: int, command: FbiCommand, rng: Rng) -> list[FbiEvent]:
        # FBI needs no randomness after setup: the deck order is recorded when shuffled.
        return rules.decide(state, seat, command)

    def view(self, state: FbiState, seat: int | None) -> FbiView:
        return views.view(state, seat)

    def redact(self, event: FbiEvent, seat: int | None) -> FbiEvent:
        return views.redact(event, seat)

    def result(self, state: FbiState | None) -> Outcome | None:
        if state is None or state.phase != "over":
            return None
        return ranking(scoring.scores(state.slammers, state.bonuses))

    def bot_move(
        self,
        level: BotLevel,
        view: FbiView,
        legal: Sequence[FbiCommand],
        rng: Rng,
        budget: Budget = TUNED,
    ) -> FbiCommand:
        return bots.bot_move(level, view, legal, rng, budget)


GAME: Game[FbiState, FbiCommand, FbiEvent, FbiView] = Fbi()
