"""The Feds (Steve Finn) with the house rules of HOUSE-RULES §2, behind the `Game` protocol.

The city cards are the project's *house city cards* (HOUSE-RULES §2), not the printed ones.
Modules: `cards` (all rules data), `options`, `commands`, `events`, `state`, `setup`,
`evolve` (the fold), `flow` (automatic steps), `rules` (pending/legal/decide), `arrests`
(strength order), `scoring`, `views` (view/redact), `rulesheet` (published rules data),
`projection`/`determinize`/`bots` (bots).

House rules: HOUSE-RULES §2 writes out what the rulebook leaves open, the mini-bust
decisions (the Officer takes part like a player, strength counts field cards only,
locations are checked top to bottom, a utility token the Officer wins leaves the game) and
the Redeploy siren swap on new-orleans included. `rulesheet.HOUSE_RULES` states each one,
and the finer decisions §2 leaves to the code, in plain words; the rules endpoint serves
them, so keep it in step with the code and with HOUSE-RULES.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from domain.budget import TUNED, Budget
from domain.engine import Awaiting, BotLevel, HouseRule, Outcome
from domain.feds import bots, rules, setup, views
from domain.feds.cards import MAX_SEATS, MIN_SEATS
from domain.feds.commands import COMMAND_TYPES
from domain.feds.events import EVENT_TYPES
from domain.feds.evolve import evolve
from domain.feds.options import FedsOptions
from domain.feds.rulesheet import HOUSE_RULES, FedsRules, rulesheet
from domain.feds.scoring import outcome
from domain.feds.state import FedsState
from domain.feds.views import FedsView
from domain.rng import Rng


class Feds:
    name = "feds"
    title = "The Feds"
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    options_type: type[msgspec.Struct] = FedsOptions
    command_types: tuple[type[msgspec.Struct], ...] = COMMAND_TYPES
    event_types: tuple[type[msgspec.Struct], ...] = EVENT_TYPES
    view_type: type[msgspec.Struct] = FedsView
    state_type: type[msgspec.Struct] = FedsState
    rules_type: type[msgspec.Struct] = FedsRules

    def rules(self) -> msgspec.Struct:
        return rulesheet(self.name, self.title)

    def house_rules(self) -> list[HouseRule]:
        return list(HOUSE_RULES)

    def setup(self, options: Any, seats: int, rng: Rng) -> list[Any]:
        return setup.setup(options, seats, rng)

    def evolve(self, state: Any | None, event: Any) -> Any:
        return evolve(state, event)

    def pending(self, state: Any) -> list[Awaiting]:
        return rules.pending(state)

    def legal(self, state: Any, seat: int) -> list[Any]:
        return rules.legal(state, seat)

    def decide(self, state: Any, seat: int, command: Any, rng: Rng) -> list[Any]:
        return rules.decide(state, seat, command, rng)

    def view(self, state: Any, seat: int | None) -> Any:
        return views.view(state, seat)

    def redact(self, event: Any, seat: int | None) -> Any:
        return views.redact(event, seat)

    def result(self, state: Any) -> Outcome | None:
        if state is None or state.phase != "over":
            return None
        return outcome(state)

    def bot_move(
        self, level: BotLevel, view: Any, legal: Sequence[Any], rng: Rng, budget: Budget = TUNED
    ) -> Any:
        return bots.bot_move(level, view, legal, rng, budget)


GAME = Feds()
