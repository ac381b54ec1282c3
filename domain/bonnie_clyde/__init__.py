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
from domain.bonnie_clyde.options import BonnieClydeOptions
from domain.bonnie_clyde.rulebook import HOUSE_RULES, BonnieClydeRules, rulebook
from domain.bonnie_clyde.state import State
from domain.bonnie_clyde.views import BonnieClydeView
from domain.budget import TUNED, Budget
from domain.engine import Awaiting, BotLevel, Game, HouseRule, Outcome
from domain.rng import Rng


class BonnieClyde:
    """The `domain.engine.Game` implementation of Bonnie and Clyde."""

    name = GAME_NAME
    title = GAME_TITLE
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    options_type: type[msgspec.Struct] = BonnieClydeOptions
    command_types: tuple[type[msgspec.Struct], ...] = COMMAND_TYPES
    event_types: tuple[type[msgspec.Struct], ...] = EVENT_TYPES
    view_type: type[msgspec.Struct] = BonnieClydeView
    rulebook_type: type[msgspec.Struct] = BonnieClydeRules

    def rulebook(self) -> BonnieClydeRules:
        return rulebook()

    def house_rules(self) -> list[HouseRule]:
        return list(HOUSE_RULES)

    def setup(self, options: BonnieClydeOptions, seats: int, rng: Rng) -> list[Event]:
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


GAME: Game[State, Command, Event, BonnieClydeView] = BonnieClyde()
