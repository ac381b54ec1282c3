"""The match engine: one game's rules wrapped with what every game shares.

The engine creates a stream, folds it (`domain.match.state`) and answers every act with
its events through one table, the act's type to its handler, as the games' own kit does
for commands (`domain.kit.Commands`). It is pure like the games: it returns events and
folds them; the service stores them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

import msgspec

from domain.budget import TUNED, Budget
from domain.engine import AnyGame, BotLevel, Outcome
from domain.errors import InvalidOptions, NotYourTurn
from domain.match import clocks, commit_reveal, endings, forfeits, seating, state, turns
from domain.match.acts import (
    Abandon,
    Abort,
    Act,
    ClaimSeat,
    CommitSeal,
    FillSeats,
    LeaveSeat,
    MakeMove,
    RecordResult,
    Rematch,
    Resign,
    RevealSeal,
    TimeOut,
)
from domain.match.events import MATCH_EVENT_TYPES, Clock, GameCreated, SealRevealed, SeatSpec
from domain.match.state import Match
from domain.match.turns import AwaitingAction
from domain.rng import Rng, seed_commitment

#: How the engine answers each act: ``(game, match, act, seed) -> events``, or a refusal
#: (a `domain.errors.DomainError`).
ActHandler = Callable[[AnyGame, Match, Any, bytes], list[Any]]

ACT_HANDLERS: dict[type[Any], ActHandler] = {
    MakeMove: turns.make_move,
    CommitSeal: commit_reveal.commit,
    RevealSeal: commit_reveal.reveal,
    TimeOut: forfeits.time_out,
    Resign: forfeits.resign,
    RecordResult: endings.record_result,
    Abandon: endings.abandon,
    Abort: endings.abort,
    ClaimSeat: seating.claim,
    LeaveSeat: seating.leave,
    FillSeats: seating.fill,
    Rematch: seating.rematch,
}


class MatchEngine:
    """The match engine of one game: creation, folding, sealed steps and every act, around
    the game's own rules. Stateless; safe to share.

    Names, once each: the *match engine* (this class, `registry.engine_for`), a game's
    *rules* (its package: ``rules.py`` decides, ``cards.py`` holds the rules data) and its
    *rulebook* (``rulebook.py``: the document ``Game.rulebook()`` publishes)."""

    def __init__(self, game: AnyGame) -> None:
        self.game = game

    # ---- creation and folding -------------------------------------------------------

    def create(
        self,
        game_id: str,
        options: dict[str, Any],
        seats: Sequence[SeatSpec],
        seed: bytes,
        clock: Clock | None = None,
    ) -> list[Any]:
        """The opening events of a new game: `GameCreated`, then the game's setup."""
        game = self.game
        if not game.min_seats <= len(seats) <= game.max_seats:
            raise InvalidOptions(
                f"{game.name} takes {game.min_seats} to {game.max_seats} seats, not {len(seats)}"
            )
        for spec in seats:
            if spec.type == "bot" and spec.level is None:
                raise InvalidOptions("a bot seat needs a level")
            if spec.type != "bot" and spec.level is not None:
                raise InvalidOptions(f"a {spec.type} seat takes no level")
        try:
            parsed = msgspec.convert(options, game.options_type)
        except msgspec.ValidationError as exc:
            raise InvalidOptions(f"options: {exc}") from exc
        created = GameCreated(
            game=game.name,
            game_id=game_id,
            options=msgspec.to_builtins(parsed),
            seats=list(seats),
            seed_commitment=seed_commitment(seed),
            clock=clock,
        )
        return [created, *game.setup(parsed, len(seats), Rng(seed, "setup"))]

    def fold(self, match: Match | None, event: Any) -> Match:
        """``match`` after ``event``, as a new Match (see `domain.match.state.fold`)."""
        return state.fold(self.game, match, event)

    def replay(self, events: Sequence[Any]) -> Match:
        return state.replay(self.game, events)

    def fold_stored(self, match: Match | None, event: Any, at_ms: int, act: Any = None) -> Match:
        """Fold a stored event with its time (``act``: on an act's first event), the clock's
        banks charged and credited (`domain.match.clocks.fold_stored`)."""
        return clocks.fold_stored(self.game, match, event, at_ms, act)

    # ---- clocks ---------------------------------------------------------------------

    def charged(self, match: Match, at_ms: int, awaited: Collection[int] | None = None) -> Match:
        """The banks charged up to an act at ``at_ms``: decide the act on this match
        (``awaited``: the seats whose bank runs, when known)."""
        return clocks.charge(self.game, match, at_ms, awaited)

    def credited(self, match: Match, act: Any) -> Match:
        """The banks after ``act``'s events were folded: its seat's increment."""
        return clocks.credit(match, act)

    def clocks(
        self, match: Match, now_ms: int, awaited: Collection[int] | None = None
    ) -> list[int] | None:
        """Each seat's bank at ``now_ms`` (ms), None without a clock."""
        return clocks.remaining_ms(self.game, match, now_ms, awaited)

    def running(self, match: Match) -> set[int]:
        """The seats whose bank runs now."""
        return clocks.running(self.game, match)

    # ---- who acts, and what they may do ---------------------------------------------

    def result(self, match: Match) -> Outcome | None:
        return self.game.result(match.state)

    def ended(self, match: Match) -> bool:
        """Over: played out (a result, recorded or not), abandoned or aborted."""
        return turns.ended(self.game, match)

    def awaiting(self, match: Match) -> list[AwaitingAction]:
        return turns.awaiting(self.game, match)

    def legal(self, match: Match, seat: int | None) -> list[Any]:
        """Moves ``seat`` may post now: public moves, or the choices it may seal."""
        return turns.legal(self.game, match, seat)

    # ---- decisions ------------------------------------------------------------------

    def perform(self, match: Match, act: Act, seed: bytes) -> list[Any]:
        """The events ``act`` produces on ``match`` (raises DomainError to refuse)."""
        handler = ACT_HANDLERS.get(type(act))
        if handler is None:
            raise TypeError(f"not an act: {act!r}")
        return handler(self.game, match, act, seed)

    def move(self, match: Match, seat: int, command: Any, seed: bytes) -> list[Any]:
        """A public move given as one of the game's commands (a bot's, a test's)."""
        return turns.move(self.game, match, seat, command, seed)

    # ---- what a seat may see --------------------------------------------------------

    def redact(self, event: Any, seat: int | None) -> Any:
        if isinstance(event, SealRevealed):
            if event.seat == seat:
                return event
            return SealRevealed(seat=event.seat, step=event.step)
        if isinstance(event, MATCH_EVENT_TYPES):
            return event
        return self.game.redact(event, seat)

    def view(self, match: Match, seat: int | None) -> Any:
        return self.game.view(match.state, seat)

    def bot_move(
        self, match: Match, seat: int, level: BotLevel, rng: Rng, budget: Budget = TUNED
    ) -> Any:
        """A bot's move for ``seat``: it is handed that seat's view and legal list only."""
        legal = self.legal(match, seat)
        if not legal:
            raise NotYourTurn(f"seat {seat} has nothing to do now")
        return self.game.bot_move(level, self.game.view(match.state, seat), legal, rng, budget)
