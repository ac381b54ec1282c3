"""The Feds (Steve Finn) with its house rules (docs/house-rules.md#feds), behind the `Game`
protocol.

The city cards are the project's *house city cards* (docs/house-rules.md#feds-house-data),
not the printed ones.
Modules: `cards` (all rules data), `options`, `commands`, `events`, `state`, `setup`,
`evolve` (the fold), `flow` (automatic steps), `rules` (pending/legal/decide), `arrests`
(strength order), `scoring`, `views` (view/redact), `rulebook` (the published rules document),
`greedy` (with `projection`), `determinize` and `bots` (the bot levels).

House rules: what the rulebook leaves open, the mini-bust decisions (the Officer takes part
like a player, strength counts field cards only, locations are checked top to bottom, a
utility token the Officer wins leaves the game) and the Redeploy siren swap on new-orleans
included, each stated in plain words in `rulebook.HOUSE_RULES`; the rules endpoint serves
them and docs/house-rules.md lists them, so keep them in step with the code.
"""

from __future__ import annotations

from domain.engine import Game
from domain.feds import bots, rules, scoring, setup, views
from domain.feds.cards import GAME_NAME, GAME_TITLE, MAX_SEATS, MIN_SEATS
from domain.feds.commands import COMMAND_TYPES, FedsCommand
from domain.feds.events import EVENT_TYPES, FedsEvent
from domain.feds.evolve import evolve
from domain.feds.options import FedsOptions
from domain.feds.rulebook import HOUSE_RULES, RULEBOOK
from domain.feds.state import FedsState
from domain.feds.views import FedsView
from domain.kit import Assembled

GAME: Game[FedsState, FedsCommand, FedsEvent, FedsView] = Assembled(
    name=GAME_NAME,
    title=GAME_TITLE,
    min_seats=MIN_SEATS,
    max_seats=MAX_SEATS,
    options_type=FedsOptions,
    command_types=COMMAND_TYPES,
    event_types=EVENT_TYPES,
    view_type=FedsView,
    state_type=FedsState,
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
