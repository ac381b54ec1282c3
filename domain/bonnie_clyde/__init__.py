"""Bonnie and Clyde (Mystery Rummy, Mike Fitzgerald), 2–4 players: HOUSE-RULES §3."""

from __future__ import annotations

from collections.abc import Sequence

from domain.bonnie_clyde import bots, expert, rules, scoring, views
from domain.bonnie_clyde.cards import GAME_NAME, GAME_TITLE, MAX_SEATS, MIN_SEATS
from domain.bonnie_clyde.commands import COMMAND_TYPES, Command
from domain.bonnie_clyde.deal import deal_hand
from domain.bonnie_clyde.events import EVENT_TYPES, Event, GameStarted
from domain.bonnie_clyde.evolve import evolve
from domain.bonnie_clyde.options import BonnieClydeOptions
from domain.bonnie_clyde.rulebook import HOUSE_RULES, rulebook
from domain.bonnie_clyde.state import State
from domain.bonnie_clyde.views import BonnieClydeView
from domain.budget import Budget
from domain.engine import BotLevel, Game
from domain.kit import Assembled
from domain.rng import Rng


def _setup(options: BonnieClydeOptions, seats: int, rng: Rng) -> list[Event]:
    # The first dealer is chosen at random and recorded in the deal.
    dealer = rng.below(seats)
    return [GameStarted(seats=seats, target=options.target), deal_hand(seats, 1, dealer, rng)]


def _bot_move(
    level: BotLevel, view: BonnieClydeView, legal: Sequence[Command], rng: Rng, budget: Budget
) -> Command:
    if level == "random":
        return bots.random_move(legal, rng)
    if level == "greedy":
        return bots.greedy_from_view(view, legal)
    return expert.expert_move(view, legal, rng, budget)


GAME: Game[State, Command, Event, BonnieClydeView] = Assembled(
    name=GAME_NAME,
    title=GAME_TITLE,
    seats=(MIN_SEATS, MAX_SEATS),
    options_type=BonnieClydeOptions,
    command_types=COMMAND_TYPES,
    event_types=EVENT_TYPES,
    view_type=BonnieClydeView,
    rulebook=rulebook(),
    house_rules=HOUSE_RULES,
    setup=_setup,
    evolve=evolve,
    pending=rules.pending,
    legal=rules.legal,
    decide=rules.decide,
    view=views.view,
    redact=views.redact,
    result=scoring.outcome,
    bot_move=_bot_move,
)
