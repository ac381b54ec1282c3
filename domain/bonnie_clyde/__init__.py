"""Bonnie and Clyde (Mystery Rummy, Mike Fitzgerald), 2–4 players: HOUSE-RULES §3."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from domain.bonnie_clyde import bots, expert, rules, scoring, views
from domain.bonnie_clyde.cards import GAME_NAME, GAME_TITLE, MAX_SEATS, MIN_SEATS
from domain.bonnie_clyde.commands import COMMAND_TYPES, Command
from domain.bonnie_clyde.deal import deal_hand
from domain.bonnie_clyde.events import EVENT_TYPES, Event, GameStarted
from domain.bonnie_clyde.evolve import evolve
from domain.bonnie_clyde.options import BonnieClydeOptions, validate
from domain.bonnie_clyde.rulebook import HOUSE_RULES, BonnieClydeRules
from domain.bonnie_clyde.rulebook import rules as published_rules
from domain.bonnie_clyde.state import State
from domain.bonnie_clyde.views import BonnieClydeView
from domain.budget import TUNED, Budget
from domain.engine import Awaiting, BotLevel, HouseRule, Outcome
from domain.errors import InvalidOptions
from domain.rng import Rng


class BonnieClyde:
    """The `domain.engine.Game` implementation of Bonnie and Clyde."""

    @property
    def name(self) -> str:
        return GAME_NAME

    @property
    def title(self) -> str:
        return GAME_TITLE

    @property
    def min_seats(self) -> int:
        return MIN_SEATS

    @property
    def max_seats(self) -> int:
        return MAX_SEATS

    @property
    def options_type(self) -> type[msgspec.Struct]:
        return BonnieClydeOptions

    @property
    def command_types(self) -> tuple[type[msgspec.Struct], ...]:
        return COMMAND_TYPES

    @property
    def event_types(self) -> tuple[type[msgspec.Struct], ...]:
        return EVENT_TYPES

    @property
    def view_type(self) -> type[msgspec.Struct]:
        return BonnieClydeView

    @property
    def state_type(self) -> type[msgspec.Struct]:
        return State

    @property
    def rules_type(self) -> type[msgspec.Struct]:
        return BonnieClydeRules

    def rules(self) -> BonnieClydeRules:
        return published_rules()

    def house_rules(self) -> list[HouseRule]:
        return list(HOUSE_RULES)

    def setup(self, options: BonnieClydeOptions, seats: int, rng: Rng) -> list[Event]:
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise InvalidOptions(f"{GAME_TITLE} takes {MIN_SEATS} to {MAX_SEATS} seats")
        validate(options)
        # The first dealer is chosen at random and recorded in the deal.
        dealer = rng.below(seats)
        return [
            GameStarted(seats=seats, target=options.target),
            deal_hand(seats, 1, dealer, rng),
        ]

    def evolve(self, state: State | None, event: Event) -> State:
        return evolve(state, event)

    def pending(self, state: State) -> list[Awaiting]:
        return rules.pending(state)

    def legal(self, state: State, seat: int) -> list[Command]:
        return rules.legal(state, seat)

    def decide(self, state: State, seat: int, command: Command, rng: Rng) -> list[Event]:
        return rules.decide(state, seat, command, rng)

    def view(self, state: State, seat: int | None) -> BonnieClydeView:
        return views.view(state, seat)

    def redact(self, event: Event, seat: int | None) -> Event:
        return views.redact(event, seat)

    def result(self, state: State | None) -> Outcome | None:
        return scoring.outcome(state)

    def bot_move(
        self,
        level: BotLevel,
        view: BonnieClydeView,
        legal: Sequence[Command],
        rng: Rng,
        budget: Budget = TUNED,
    ) -> Command:
        if level == "random":
            return bots.random_move(legal, rng)
        if level == "greedy":
            return bots.greedy_from_view(view, legal)
        return expert.expert_move(view, legal, rng, budget)


GAME = BonnieClyde()
