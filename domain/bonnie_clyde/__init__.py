"""Bonnie and Clyde (Mystery Rummy, Mike Fitzgerald), 2–4 players: HOUSE-RULES §3."""

from __future__ import annotations

from domain.bonnie_clyde import bots, rules, scoring, views
from domain.bonnie_clyde.cards import GAME_NAME, GAME_TITLE, MAX_SEATS, MIN_SEATS
from domain.bonnie_clyde.commands import COMMAND_TYPES, Command
from domain.bonnie_clyde.deal import setup
from domain.bonnie_clyde.events import EVENT_TYPES, Event
from domain.bonnie_clyde.evolve import evolve
from domain.bonnie_clyde.options import BonnieClydeOptions
from domain.bonnie_clyde.rulebook import HOUSE_RULES, rulebook
from domain.bonnie_clyde.state import State
from domain.bonnie_clyde.views import BonnieClydeView
from domain.engine import Game
from domain.kit import Assembled

GAME: Game[State, Command, Event, BonnieClydeView] = Assembled(
    name=GAME_NAME,
    title=GAME_TITLE,
    seats=(MIN_SEATS, MAX_SEATS),
    options_type=BonnieClydeOptions,
    command_types=COMMAND_TYPES,
    event_types=EVENT_TYPES,
    view_type=BonnieClydeView,
    state_type=State,
    rulebook=rulebook(),
    house_rules=HOUSE_RULES,
    setup=setup,
    evolve=evolve,
    pending=rules.pending,
    legal=rules.legal,
    decide=rules.decide,
    view=views.view,
    redact=views.redact,
    result=scoring.outcome,
    bot_move=bots.bot_move,
)
