"""Bonnie and Clyde (Mystery Rummy, Mike Fitzgerald), 2–4 players.

Its rules and house rules: docs/house-rules.md#bonnie_clyde.
"""

from __future__ import annotations

from domain.bonnie_clyde import bots, rules, scoring, setup, views
from domain.bonnie_clyde.cards import GAME_NAME, GAME_TITLE, MAX_SEATS, MIN_SEATS
from domain.bonnie_clyde.commands import COMMAND_TYPES, BonnieClydeCommand
from domain.bonnie_clyde.events import EVENT_TYPES, BonnieClydeEvent
from domain.bonnie_clyde.evolve import evolve
from domain.bonnie_clyde.options import BonnieClydeOptions
from domain.bonnie_clyde.rulebook import HOUSE_RULES, RULEBOOK
from domain.bonnie_clyde.state import BonnieClydeState
from domain.bonnie_clyde.views import BonnieClydeView
from domain.engine import Game
from domain.kit import Assembled

GAME: Game[BonnieClydeState, BonnieClydeCommand, BonnieClydeEvent, BonnieClydeView] = Assembled(
    name=GAME_NAME,
    title=GAME_TITLE,
    min_seats=MIN_SEATS,
    max_seats=MAX_SEATS,
    options_type=BonnieClydeOptions,
    command_types=COMMAND_TYPES,
    event_types=EVENT_TYPES,
    view_type=BonnieClydeView,
    state_type=BonnieClydeState,
    published_rulebook=RULEBOOK,
    published_house_rules=HOUSE_RULES,
    setup=setup.setup,
    evolve=evolve,
    pending=rules.pending,
    legal=rules.legal,
    decide=rules.decide,
    view=views.view,
    redact=views.redact,
    result=scoring.result,
    bot_move=bots.BOTS,
)
