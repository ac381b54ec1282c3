"""FBI (Wolfgang Kramer & Horst-Rainer Rösner), 2–5 players.

Its rules and house rules: docs/house-rules.md#fbi.
"""

from __future__ import annotations

from domain.engine import Game
from domain.fbi import bots, rules, scoring, setup, views
from domain.fbi.cards import GAME_NAME, GAME_TITLE, MAX_SEATS, MIN_SEATS
from domain.fbi.commands import COMMAND_TYPES, FbiCommand
from domain.fbi.events import EVENT_TYPES, FbiEvent
from domain.fbi.evolve import evolve
from domain.fbi.options import FbiOptions
from domain.fbi.rulebook import HOUSE_RULES, RULEBOOK
from domain.fbi.state import FbiState
from domain.fbi.views import FbiView
from domain.kit import Assembled

GAME: Game[FbiState, FbiCommand, FbiEvent, FbiView] = Assembled(
    name=GAME_NAME,
    title=GAME_TITLE,
    min_seats=MIN_SEATS,
    max_seats=MAX_SEATS,
    options_type=FbiOptions,
    command_types=COMMAND_TYPES,
    event_types=EVENT_TYPES,
    view_type=FbiView,
    state_type=FbiState,
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
