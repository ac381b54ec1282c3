"""The Feds (Steve Finn) with the house rules of HOUSE-RULES §2, behind the `Game` protocol.

The city cards are the project's *house city cards* (HOUSE-RULES §2), not the printed ones.
Modules: `cards` (all rules data), `options`, `commands`, `events`, `state`, `setup`,
`evolve` (the fold), `flow` (automatic steps), `rules` (pending/legal/decide), `arrests`
(strength order), `scoring`, `views` (view/redact), `rulebook` (the published rules document),
`projection`/`determinize`/`bots` (bots).

House rules: HOUSE-RULES §2 writes out what the rulebook leaves open, the mini-bust
decisions (the Officer takes part like a player, strength counts field cards only,
locations are checked top to bottom, a utility token the Officer wins leaves the game) and
the Redeploy siren swap on new-orleans included. `rulebook.HOUSE_RULES` states each one,
and the finer decisions §2 leaves to the code, in plain words; the rules endpoint serves
them, so keep it in step with the code and with HOUSE-RULES.
"""

from __future__ import annotations

from domain.engine import Game
from domain.feds import bots, rules, setup, views
from domain.feds.cards import GAME_NAME, GAME_TITLE, MAX_SEATS, MIN_SEATS
from domain.feds.commands import COMMAND_TYPES, FedsCommand
from domain.feds.events import EVENT_TYPES, FedsEvent
from domain.feds.evolve import evolve
from domain.feds.options import FedsOptions
from domain.feds.rulebook import HOUSE_RULES, rulebook
from domain.feds.scoring import result
from domain.feds.state import FedsState
from domain.feds.views import FedsView
from domain.kit import Assembled

GAME: Game[FedsState, FedsCommand, FedsEvent, FedsView] = Assembled(
    name=GAME_NAME,
    title=GAME_TITLE,
    seats=(MIN_SEATS, MAX_SEATS),
    options_type=FedsOptions,
    command_types=COMMAND_TYPES,
    event_types=EVENT_TYPES,
    view_type=FedsView,
    state_type=FedsState,
    rulebook=rulebook(GAME_NAME, GAME_TITLE),
    house_rules=HOUSE_RULES,
    setup=setup.setup,
    evolve=evolve,
    pending=rules.pending,
    legal=rules.legal,
    decide=rules.decide,
    view=views.view,
    redact=views.redact,
    result=result,
    bot_move=bots.bot_move,
)
