"""The Feds (Steve Finn) with the house rules of HOUSE-RULES §2, behind the `Game` protocol.

The city cards are the project's *house city cards* (HOUSE-RULES §2), not the printed ones.
Modules: `cards` (all rules data), `options`, `commands`, `events`, `state`, `setup`,
`evolve` (the fold), `flow` (automatic steps), `rules` (pending/legal/decide), `arrests`
(strength order), `scoring`, `views` (view/redact), `rulesheet` (published rules data),
`projection`/`determinize`/`bots` (bots).

Decisions HOUSE-RULES §2 leaves open, taken here:

- Only an Infiltrate's flip hands a special agent's power to the flipper on the new-orleans
  card; a flip by a deploy or by the Officer activates the power for the card's owner. The
  power is then used as if the user owned it: a Redeploy moves the *user's* field agents, a
  Patrol acts at the Patrol's location.
- An Infiltrate (flip) may target the mole at any other location: the user's own, another
  player's, or the Officer's face-up one. A Detroit Infiltrate (peek) targets another
  player's face-down mole the user has not seen yet; who peeked where is public.
- A Redeploy may move any of the user's field agents, itself included, to any other
  location, closed or not. A siren swap needs two locations that still hold a siren.
- Activations form a stack: the newest is answered first, and nobody deploys meanwhile.
- Closing is only decided at step 3 (a field may hold more than 7 agents during step 2);
  a closed location only refuses step-1 choices. Step 3 also runs after round 7 (no effect).
- Mini-busts run after step 2 (after the Officer's deploy with 2 players), top to bottom.
  The Officer takes part like a player and picks in its colour order. A share is not
  optional: the strongest takes exactly min(2, colours present) criminals of different
  colours. A mini-bust stops when its location runs out of criminals. On the new-orleans
  card a tie for the top strength (before closeness) means nobody arrests; the siren goes
  either way.
- Face-down utility tokens (new-orleans, two at random locations) are hidden from everyone
  until won at the bust; a token nobody wins stays hidden. A token the Officer wins is
  removed from play.
- No power activates during the bust (HOUSE-RULES §2 "decided"); the Officer's mole flips
  face up into its field like any other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from domain.budget import TUNED, Budget
from domain.engine import Awaiting, BotLevel, Outcome
from domain.feds import bots, rules, setup, views
from domain.feds.cards import MAX_SEATS, MIN_SEATS
from domain.feds.commands import COMMAND_TYPES
from domain.feds.events import EVENT_TYPES
from domain.feds.evolve import evolve
from domain.feds.options import FedsOptions
from domain.feds.rulesheet import FedsRules, rulesheet
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
