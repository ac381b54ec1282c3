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

from collections.abc import Sequence

import msgspec

from domain.budget import TUNED, Budget
from domain.engine import Awaiting, BotLevel, Game, HouseRule, Outcome
from domain.feds import bots, rules, setup, views
from domain.feds.cards import MAX_SEATS, MIN_SEATS
from domain.feds.commands import COMMAND_TYPES, FedsCommand
from domain.feds.events import EVENT_TYPES, FedsEvent
from domain.feds.evolve import evolve
from domain.feds.options import FedsOptions
from domain.feds.rulebook import HOUSE_RULES, FedsRules, rulebook
from domain.feds.scoring import outcome
from domain.feds.state import FedsState
from domain.feds.views import FedsView
from domain.rng import Rng


class Feds:
    """The Feds behind the uniform `domain.engine.Game` interface."""

    name = "feds"
    title = "The Feds"
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    options_type: type[msgspec.Struct] = FedsOptions
    command_types: tuple[type[msgspec.Struct], ...] = COMMAND_TYPES
    event_types: tuple[type[msgspec.Struct], ...] = EVENT_TYPES
    view_type: type[msgspec.Struct] = FedsView
    rulebook_type: type[msgspec.Struct] = FedsRules

    def rulebook(self) -> FedsRules:
        return rulebook(self.name, self.title)

    def house_rules(self) -> list[HouseRule]:
        return list(HOUSE_RULES)

    def setup(self, options: FedsOptions, seats: int, rng: Rng) -> list[FedsEvent]:
        return setup.setup(options, seats, rng)

    def evolve(self, state: FedsState | None, event: FedsEvent) -> FedsState:
        return evolve(state, event)

    def pending(self, state: FedsState) -> list[Awaiting]:
        return rules.pending(state)

    def legal(self, state: FedsState, seat: int) -> list[FedsCommand]:
        return rules.legal(state, seat)

    def decide(
        self, state: FedsState, seat: int, command: FedsCommand, rng: Rng
    ) -> list[FedsEvent]:
        return rules.decide(state, seat, command, rng)

    def view(self, state: FedsState, seat: int | None) -> FedsView:
        return views.view(state, seat)

    def redact(self, event: FedsEvent, seat: int | None) -> FedsEvent:
        return views.redact(event, seat)

    def result(self, state: FedsState | None) -> Outcome | None:
        if state is None or state.phase != "over":
            return None
        return outcome(state)

    def bot_move(
        self,
        level: BotLevel,
        view: FedsView,
        legal: Sequence[FedsCommand],
        rng: Rng,
        budget: Budget = TUNED,
    ) -> FedsCommand:
        return bots.bot_move(level, view, legal, rng, budget)


GAME: Game[FedsState, FedsCommand, FedsEvent, FedsView] = Feds()
