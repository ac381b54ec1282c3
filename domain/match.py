"""A match: one game's state plus the game-independent parts of its event stream.

The match layer wraps a `Game` with what every game shares: the creation event, sealed
steps (commit–reveal), forfeits and the recorded result. It is pure like the games: it
returns events and folds them; the service stores them.

Sealed steps. A game marks simultaneous secret choices by listing seats in ``pending``
with ``sealed=True``. Each of those seats commits a hash, then — once every commitment is
in — reveals its move and salt. Nothing of a revealed move reaches anyone else until the
last reveal arrives; then the match feeds the moves to ``Game.decide`` in seat order and
the game's own (public or redacted) events tell the table what was chosen. A move that
proves illegal at reveal forfeits the choice: a random legal move is chosen for the seat
and a `SealForfeited` event says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

import msgspec

from domain import sealed
from domain.budget import TUNED, Budget
from domain.engine import (
    AnyGame,
    Awaiting,
    BotLevel,
    Outcome,
    PerSeat,
    Seat,
    SeatList,
    Step,
    tagged_union,
)
from domain.errors import (
    CommitmentError,
    DomainError,
    GameNotStarted,
    GameOver,
    GameStartedAlready,
    IllegalMove,
    NotAnOpenSeat,
    NotEnded,
    NotYourTurn,
    RevealMismatch,
    SealedStepRequired,
    SeatTaken,
    WrongPhase,
)
from domain.rng import Rng

SeatType = Literal["human", "bot", "open"]


Level = Annotated[
    BotLevel | None,
    msgspec.Meta(
        description="The bot's level for a bot seat (random: uniform over legal moves; "
        "greedy: a one-move heuristic; expert: a search), null for a human seat."
    ),
]
Kind = Annotated[
    SeatType,
    msgspec.Meta(
        description="human: played by a client; bot: by the server; open: nobody yet, "
        "waiting to be claimed with its invite (the game waits until no seat is open)."
    ),
]
SeatName = Annotated[
    Annotated[str, msgspec.Meta(max_length=40)] | None,
    msgspec.Meta(description="The seat's display name (up to 40 characters), or null."),
]
ExternalId = Annotated[
    Annotated[str, msgspec.Meta(max_length=200)] | None,
    msgspec.Meta(
        description="The client backend's own id of the seat's player (up to 200 characters),"
        " or null. Shown to everyone who may see the game; never a secret.",
    ),
]


class SeatSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Who plays a seat, as given at creation (and as claims, leaves and fills change it)."""

    type: Kind
    level: Level = None
    name: SeatName = None
    external_id: ExternalId = None


class GameCreated(msgspec.Struct, frozen=True, tag="game.created", tag_field="type"):
    """First event of every stream. The seed itself is never in an event."""

    game: Annotated[str, msgspec.Meta(description="The game's name (fbi, feds, bonnie_clyde).")]
    game_id: Annotated[str, msgspec.Meta(description="The game's id (24 hex digits).")]
    options: Annotated[
        dict[str, Any], msgspec.Meta(description="The game's options, defaults filled in.")
    ]
    seats: Annotated[list[SeatSpec], msgspec.Meta(description="Who plays each seat, by seat.")]
    seed_commitment: Annotated[
        str,
        msgspec.Meta(
            description="hex(SHA-256(seed)): the secret shuffle seed, published in the replay "
            "once the game is over, must hash to this."
        ),
    ]


class SealCommitted(msgspec.Struct, frozen=True, tag="seal.committed", tag_field="type"):
    """A seat committed (or replaced its commitment) in a sealed step; the move stays
    secret until every seat has revealed."""

    seat: Seat
    step: Step
    commitment: Annotated[
        str, msgspec.Meta(description="The posted hash (64 hex digits); the last one counts.")
    ]


class SealRevealed(msgspec.Struct, frozen=True, tag="seal.revealed", tag_field="type"):
    """A seat revealed its sealed move. ``move`` and ``salt`` are shown to the revealing
    seat only (and in the final replay); the others see that it revealed."""

    seat: Seat
    step: Step
    move: Annotated[
        dict[str, Any] | None,
        msgspec.Meta(description="The revealed move (the revealing seat only, else null)."),
    ] = None
    salt: Annotated[
        str | None, msgspec.Meta(description="Its salt (the revealing seat only, else null).")
    ] = None


class SealForfeited(msgspec.Struct, frozen=True, tag="seal.forfeited", tag_field="type"):
    """The seat's sealed choice was illegal, missing at a deadline, or given up by
    resigning; a random legal choice stands in for it when the step resolves."""

    seat: Seat
    step: Step
    reason: Annotated[str, msgspec.Meta(description="Why, in words.")]


class TurnTimedOut(msgspec.Struct, frozen=True, tag="turn.timed_out", tag_field="type"):
    """The seat missed its turn deadline; the events that follow are a bot's move for it."""

    seat: Seat
    step: Step


class ResultRecorded(msgspec.Struct, frozen=True, tag="game.result_recorded", tag_field="type"):
    """The final result, appended once by the scoring job after the game is over (fields
    as in `Outcome`)."""

    scores: PerSeat
    winners: SeatList
    places: PerSeat


class SeatResigned(msgspec.Struct, frozen=True, tag="seat.resigned", tag_field="type"):
    """The seat's player resigned: from here on a bot of ``level`` plays the seat."""

    seat: Seat
    level: Annotated[BotLevel, msgspec.Meta(description="The bot that plays it now.")] = "random"


class GameAborted(msgspec.Struct, frozen=True, tag="game.aborted", tag_field="type"):
    """The API key that created the game ended it unfinished: no result, no more moves."""


class GameAbandoned(msgspec.Struct, frozen=True, tag="game.abandoned", tag_field="type"):
    """Nobody acted for ``idle_seconds``: the game ends here, without a result."""

    idle_seconds: Annotated[
        int, msgspec.Meta(description="How long nobody had acted (seconds) when it ended.")
    ]


class SeatClaimed(msgspec.Struct, frozen=True, tag="seat.claimed", tag_field="type"):
    """An open seat was claimed with its invite: a person plays it from now on (the token
    went to the claimer alone; it is never in an event)."""

    seat: Seat
    name: SeatName = None
    external_id: ExternalId = None


class SeatLeft(msgspec.Struct, frozen=True, tag="seat.left", tag_field="type"):
    """The seat's claimer left before the game started: the seat is open again (its
    invite works again) and its token no longer does."""

    seat: Seat


class SeatsFilled(msgspec.Struct, frozen=True, tag="seats.filled", tag_field="type"):
    """The creator filled every open seat with a bot of ``level``."""

    seats: Annotated[list[int], msgspec.Meta(description="The seats the bots took.")]
    level: Annotated[BotLevel, msgspec.Meta(description="The bots' level.")]


class GameStarted(msgspec.Struct, frozen=True, tag="game.started", tag_field="type"):
    """The last open seat was filled: the game waits for players no longer, acts open."""


class RematchCreated(msgspec.Struct, frozen=True, tag="rematch.created", tag_field="type"):
    """The next game of this table was created (POST /v1/games/{id}/rematch): same game,
    options and kinds of seat, the seats rotated by one."""

    game_id: Annotated[str, msgspec.Meta(description="The rematch's game id (24 hex digits).")]


MATCH_EVENT_TYPES: tuple[type[msgspec.Struct], ...] = (
    GameCreated,
    SealCommitted,
    SealRevealed,
    SealForfeited,
    TurnTimedOut,
    ResultRecorded,
    GameAbandoned,
    SeatResigned,
    GameAborted,
    SeatClaimed,
    SeatLeft,
    SeatsFilled,
    GameStarted,
    RematchCreated,
)
# After one of these nothing more is appended to a stream (live feeds end there).
FINAL_EVENT_TYPES: tuple[type[msgspec.Struct], ...] = (ResultRecorded, GameAbandoned, GameAborted)


class MakeMove(msgspec.Struct, frozen=True, tag="move", tag_field="kind"):
    """A public move by ``seat``; ``move`` is the command as JSON (tag included)."""

    seat: int
    move: dict[str, Any]


class CommitSeal(msgspec.Struct, frozen=True, tag="commit", tag_field="kind"):
    seat: int
    commitment: str
    step: str | None = None


class RevealSeal(msgspec.Struct, frozen=True, tag="reveal", tag_field="kind"):
    seat: int
    move: dict[str, Any]
    salt: str


class RecordResult(msgspec.Struct, frozen=True, tag="result", tag_field="kind"):
    """The scoring job's act: record the final result once."""


class TimeOut(msgspec.Struct, frozen=True, tag="timeout", tag_field="kind"):
    """The deadline job's act: ``seat`` did not ``action`` in ``step`` in time."""

    seat: int
    action: Literal["move", "commit", "reveal"]
    step: str


class Abandon(msgspec.Struct, frozen=True, tag="abandon", tag_field="kind"):
    """The sweep's act: nobody has acted for ``idle_seconds``; end the game unfinished."""

    idle_seconds: int


class Resign(msgspec.Struct, frozen=True, tag="resign", tag_field="kind"):
    """``seat`` gives up: a bot plays it from now on, as when a deadline passes."""

    seat: int


class Abort(msgspec.Struct, frozen=True, tag="abort", tag_field="kind"):
    """The creator's act: end the unfinished game without a result."""


class ClaimSeat(msgspec.Struct, frozen=True, tag="claim", tag_field="kind"):
    """A person claims open ``seat`` with its invite (the service checked the invite)."""

    seat: int
    name: str | None = None
    external_id: str | None = None


class LeaveSeat(msgspec.Struct, frozen=True, tag="leave", tag_field="kind"):
    """The claimer of ``seat`` leaves before the start: the seat is open again."""

    seat: int


class FillSeats(msgspec.Struct, frozen=True, tag="fill", tag_field="kind"):
    """The creator's act: bots of ``level`` take every open seat; the game starts."""

    level: BotLevel


class Rematch(msgspec.Struct, frozen=True, tag="rematch", tag_field="kind"):
    """Record the next game of this table (once: a later rematch finds the first)."""

    game_id: str


# Everything that can change a stream, as data: stored beside the events it produced, so a
# verifier holding the seed can re-run every decision and compare (see domain/verify.py).
Act = (
    MakeMove
    | CommitSeal
    | RevealSeal
    | RecordResult
    | TimeOut
    | Abandon
    | Resign
    | Abort
    | ClaimSeat
    | LeaveSeat
    | FillSeats
    | Rematch
)

# The level of the bot that plays a resigned seat: the deadline's stand-in, a random move.
RESIGNED_LEVEL: BotLevel = "random"


class Match(msgspec.Struct):
    """The folded state of one stream.

    ``commits``, ``reveals`` and ``forfeited`` belong to the sealed step ``seal_step``; a
    forfeited seat (it missed a deadline) counts as committed and revealed, and a bot's
    random legal choice stands in for its move when the step resolves. ``seats`` is who
    plays each seat now: a resigned seat (listed in ``resigned``) is a bot's from then on.
    """

    game_id: str
    seats: list[SeatSpec]
    options: dict[str, Any]
    state: Any
    version: int = 0
    seal_step: str | None = None
    commits: dict[int, str] = msgspec.field(default_factory=dict)
    reveals: dict[int, SealRevealed] = msgspec.field(default_factory=dict)
    forfeited: dict[int, str] = msgspec.field(default_factory=dict)
    recorded: Outcome | None = None
    abandoned: bool = False
    resigned: list[int] = msgspec.field(default_factory=list)
    aborted: bool = False
    # Seats open at creation (claimed by invite), and whether the game still waits for
    # players (some seat open); the next game of this table once a rematch was made.
    invited: tuple[int, ...] = ()
    waiting: bool = False
    rematch: str | None = None


class AwaitingAction(msgspec.Struct, frozen=True):
    """One seat the game waits for, and what it must do."""

    seat: Seat
    action: Annotated[
        Literal["move", "commit", "reveal"],
        msgspec.Meta(
            description="move: post one item of `legal` to /moves; commit: post a hash of "
            "your choice to /commitments (a sealed step); reveal: post the move and salt to "
            "/reveals (once every seat of the step has committed)."
        ),
    ]
    step: Step
    deadline: Annotated[
        int | None,
        msgspec.Meta(
            description="When a bot will act for the seat (epoch milliseconds), in games "
            "created with turn_seconds; null otherwise."
        ),
    ] = None


def _rng(seed: bytes, version: int) -> Rng:
    # Each decision forks the seed by the version it builds on, so a verifier holding the
    # seed and the stream re-derives every random choice independently of timing.
    return Rng(seed, f"v{version}")


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
        self, game_id: str, options: dict[str, Any], seats: Sequence[SeatSpec], seed: bytes
    ) -> list[Any]:
        from domain.errors import InvalidOptions

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
        normal = msgspec.to_builtins(parsed)
        created = GameCreated(
            game=game.name,
            game_id=game_id,
            options=normal,
            seats=list(seats),
            seed_commitment=_commit_seed(seed),
        )
        return [created, *game.setup(parsed, len(seats), Rng(seed, "setup"))]

    def fold(self, match: Match | None, event: Any) -> Match:
        """``match`` after ``event``, as a new Match: the input is never changed.

        Pure like the games' ``evolve``, so a folded state can be shared as an immutable
        snapshot (the service's warm cache hands the same Match to concurrent requests).
        Only what changes is copied: the sealed-step dicts when they change, the game state
        through its own pure ``evolve``; the rest is shared.
        """
        if isinstance(event, GameCreated):
            return _created(event)
        if match is None:
            raise ValueError("a stream must start with game.created")
        version = match.version + 1
        replace = msgspec.structs.replace
        if isinstance(event, SealCommitted):
            entered = _entered(match, event.step)
            return replace(
                entered, version=version, commits={**entered.commits, event.seat: event.commitment}
            )
        if isinstance(event, SealRevealed):
            return replace(match, version=version, reveals={**match.reveals, event.seat: event})
        if isinstance(event, SealForfeited):
            entered = _entered(match, event.step)
            return replace(
                entered, version=version, forfeited={**entered.forfeited, event.seat: event.reason}
            )
        if isinstance(event, TurnTimedOut):
            return replace(match, version=version)
        if isinstance(event, GameAbandoned):
            return replace(match, version=version, abandoned=True)
        if isinstance(event, GameAborted):
            return replace(match, version=version, aborted=True)
        if isinstance(event, SeatResigned):
            seats = list(match.seats)
            was = seats[event.seat]
            seats[event.seat] = SeatSpec("bot", event.level, was.name, was.external_id)
            return replace(
                match, version=version, seats=seats, resigned=[*match.resigned, event.seat]
            )
        if isinstance(event, SeatClaimed | SeatLeft | SeatsFilled):
            return replace(match, version=version, seats=_seated(match.seats, event))
        if isinstance(event, GameStarted):
            return replace(match, version=version, waiting=False)
        if isinstance(event, RematchCreated):
            return replace(match, version=version, rematch=event.game_id)
        if isinstance(event, ResultRecorded):
            return replace(
                match,
                version=version,
                recorded=Outcome(scores=event.scores, winners=event.winners, places=event.places),
            )
        return replace(match, version=version, state=self.game.evolve(match.state, event))

    def replay(self, events: Sequence[Any]) -> Match:
        match: Match | None = None
        for event in events:
            match = self.fold(match, event)
        if match is None:
            raise ValueError("empty stream")
        return match

    # ---- who acts, and what they may do ---------------------------------------------

    def result(self, match: Match) -> Outcome | None:
        return self.game.result(match.state)

    def ended(self, match: Match) -> bool:
        """Over: played out (a result, recorded or not), abandoned or aborted."""
        return match.aborted or match.abandoned or self.game.result(match.state) is not None

    def awaiting(self, match: Match) -> list[AwaitingAction]:
        if (
            match.waiting
            or match.abandoned
            or match.aborted
            or self.game.result(match.state) is not None
        ):
            return []
        out: list[AwaitingAction] = []
        pending = self.game.pending(match.state)
        sealed_seats = [p for p in pending if p.sealed]
        for p in pending:
            if not p.sealed:
                out.append(AwaitingAction(p.seat, "move", p.step))
        if sealed_seats:
            step = sealed_seats[0].step
            committed, revealed = _sealed_progress(match, step)
            all_committed = all(p.seat in committed for p in sealed_seats)
            for p in sealed_seats:
                if p.seat not in committed:
                    out.append(AwaitingAction(p.seat, "commit", step))
                elif all_committed and p.seat not in revealed:
                    out.append(AwaitingAction(p.seat, "reveal", step))
        out.sort(key=lambda a: a.seat)
        return out

    def legal(self, match: Match, seat: int | None) -> list[Any]:
        """Moves ``seat`` may post now: public moves, or the choices it may seal (also once
        committed, while it may still replace its commitment)."""
        if seat is None or match.waiting:
            return []
        actions = [a for a in self.awaiting(match) if a.seat == seat]
        if actions and actions[0].action != "reveal":
            return self.game.legal(match.state, seat)
        if not actions and self._may_recommit(match, seat):
            return self.game.legal(match.state, seat)
        return []

    def _may_recommit(self, match: Match, seat: int) -> bool:
        """``seat`` has committed in the current sealed step and reveals have not opened."""
        if match.aborted or self.game.result(match.state) is not None:
            return False
        sealed_seats = [p for p in self.game.pending(match.state) if p.sealed]
        if seat not in [p.seat for p in sealed_seats]:
            return False
        step = sealed_seats[0].step
        committed = _sealed_progress(match, step)[0]
        return (
            seat in committed
            and seat not in _forfeits(match, step)
            and not all(p.seat in committed for p in sealed_seats)
        )

    # ---- decisions ------------------------------------------------------------------

    def _pending_for(self, match: Match, seat: int) -> Awaiting:
        if self.game.result(match.state) is not None:
            raise GameOver("the game is over")
        if match.abandoned:
            raise GameOver("the game was abandoned")
        if match.aborted:
            raise GameOver("the game was aborted")
        if match.waiting:
            raise GameNotStarted("the game waits for players: it starts once no seat is open")
        for p in self.game.pending(match.state):
            if p.seat == seat:
                return p
        raise NotYourTurn(f"seat {seat} has nothing to do now")

    def perform(self, match: Match, act: Act, seed: bytes) -> list[Any]:
        """The events ``act`` produces on ``match`` (raises DomainError to refuse)."""
        if isinstance(act, MakeMove):
            try:
                command = msgspec.convert(act.move, command_union(self.game))
            except msgspec.ValidationError as exc:
                raise IllegalMove(f"not a move of {self.game.name}: {exc}") from exc
            return self.move(match, act.seat, command, seed)
        if isinstance(act, CommitSeal):
            return self.commit(match, act.seat, act.commitment, act.step)
        if isinstance(act, RevealSeal):
            return self.reveal(match, act.seat, act.move, act.salt, seed)
        if isinstance(act, TimeOut):
            return self.time_out(match, act, seed)
        if isinstance(act, Abandon):
            return self.abandon(match, act)
        if isinstance(act, Resign):
            return self.resign(match, act.seat, seed)
        if isinstance(act, Abort):
            return self.abort(match)
        if isinstance(act, ClaimSeat):
            return self.claim(match, act)
        if isinstance(act, LeaveSeat):
            return self.leave(match, act.seat)
        if isinstance(act, FillSeats):
            return self.fill(match, act.level)
        if isinstance(act, Rematch):
            return self.rematch(match, act.game_id)
        return self.record_result(match)

    # ---- the table before the start, and after the end --------------------------------

    def _before_start(self, match: Match) -> None:
        if match.aborted or match.abandoned:
            raise GameOver("the game has ended")
        if not match.waiting:
            raise GameStartedAlready("the game has started: its seats are settled")

    def claim(self, match: Match, act: ClaimSeat) -> list[Any]:
        """A person takes open ``act.seat``; the game starts when no seat is left open."""
        self._before_start(match)
        if not 0 <= act.seat < len(match.seats) or act.seat not in match.invited:
            raise NotAnOpenSeat(f"seat {act.seat} was not open at creation")
        if match.seats[act.seat].type != "open":
            raise SeatTaken(f"seat {act.seat} has been claimed already")
        events: list[Any] = [SeatClaimed(act.seat, act.name, act.external_id)]
        if all(s.type != "open" for i, s in enumerate(match.seats) if i != act.seat):
            events.append(GameStarted())
        return events

    def leave(self, match: Match, seat: int) -> list[Any]:
        """The claimer of ``seat`` gives it back before the start."""
        self._before_start(match)
        if seat not in match.invited:
            raise NotAnOpenSeat(f"seat {seat} was not open at creation: it cannot be left")
        if match.seats[seat].type == "open":
            raise NotAnOpenSeat(f"seat {seat} is open already")
        return [SeatLeft(seat)]

    def fill(self, match: Match, level: BotLevel) -> list[Any]:
        """Bots of ``level`` take every open seat, and the game starts."""
        self._before_start(match)
        seats = [i for i, s in enumerate(match.seats) if s.type == "open"]
        return [SeatsFilled(seats, level), GameStarted()]

    def rematch(self, match: Match, game_id: str) -> list[Any]:
        """Record the next game once the game has ended (a second rematch finds the first)."""
        if match.rematch is not None:
            return []
        if not self.ended(match):
            raise NotEnded("a rematch follows a game that has ended")
        if match.invited and any(s.type == "open" for s in match.seats):
            raise GameNotStarted("the game ended before it started: there is nothing to replay")
        return [RematchCreated(game_id)]

    def abandon(self, match: Match, act: Abandon) -> list[Any]:
        """End an idle game without a result (once; a finished game is not abandoned)."""
        if self.game.result(match.state) is not None:
            raise GameOver("the game is over")
        if match.abandoned or match.aborted:
            return []
        return [GameAbandoned(idle_seconds=act.idle_seconds)]

    def resign(self, match: Match, seat: int, seed: bytes) -> list[Any]:
        """``seat`` resigns: a bot plays it from now on. Its unrevealed sealed choice in the
        current step is forfeited, as at a missed deadline (a bot's choice stands in)."""
        if self.game.result(match.state) is not None or match.aborted or match.abandoned:
            raise GameOver("the game is over")
        if match.waiting:
            raise GameNotStarted("the game has not started: leave the seat instead")
        if not 0 <= seat < len(match.seats) or match.seats[seat].type != "human":
            raise WrongPhase(f"seat {seat} is not played by a person: it cannot resign")
        events: list[Any] = [SeatResigned(seat=seat, level=RESIGNED_LEVEL)]
        sealed_seats = [q.seat for q in self.game.pending(match.state) if q.sealed]
        if seat in sealed_seats:
            step = next(q.step for q in self.game.pending(match.state) if q.sealed)
            if seat not in _sealed_progress(match, step)[1]:
                events += self._forfeit(match, seat, step, "resigned", seed)
        return events

    def abort(self, match: Match) -> list[Any]:
        """End an unfinished game without a result."""
        if self.game.result(match.state) is not None:
            raise GameOver("the game is over")
        if match.aborted or match.abandoned:
            raise GameOver("the game has ended already")
        return [GameAborted()]

    def time_out(self, match: Match, act: TimeOut, seed: bytes) -> list[Any]:
        """A missed deadline: a random legal move for a public step, a forfeit for a sealed one."""
        expected = AwaitingAction(act.seat, act.action, act.step)
        if expected not in self.awaiting(match):
            raise WrongPhase(f"seat {act.seat} is not awaited to {act.action} in {act.step}")
        rng = _rng(seed, match.version)
        if act.action == "move":
            fallback = rng.fork("timeout").choice(self.game.legal(match.state, act.seat))
            decided = self.game.decide(match.state, act.seat, fallback, rng)
            return [TurnTimedOut(seat=act.seat, step=act.step), *decided]
        return self._forfeit(match, act.seat, act.step, f"missed the {act.action} deadline", seed)

    def _forfeit(self, match: Match, seat: int, step: str, reason: str, seed: bytes) -> list[Any]:
        """``seat`` forfeits its choice in sealed ``step``; resolves the step if it was last."""
        events: list[Any] = [SealForfeited(seat, step, reason)]
        sealed_seats = [q.seat for q in self.game.pending(match.state) if q.sealed]
        revealed = _sealed_progress(match, step)[1]
        if all(s in revealed or s == seat for s in sealed_seats):
            forfeited = {**_forfeits(match, step), seat: "forfeit"}
            reveals = dict(match.reveals) if match.seal_step == step else {}
            events += self._resolve_sealed(match, step, sealed_seats, reveals, forfeited, seed)
        return events

    def move(self, match: Match, seat: int, command: Any, seed: bytes) -> list[Any]:
        """A public move."""
        if not isinstance(command, self.game.command_types):
            raise IllegalMove(f"not a move of {self.game.name}")
        p = self._pending_for(match, seat)
        if p.sealed:
            raise SealedStepRequired(f"step {p.step} is sealed: post a commitment, then reveal")
        return self.game.decide(match.state, seat, command, _rng(seed, match.version))

    def commit(self, match: Match, seat: int, commitment: str, step: str | None) -> list[Any]:
        p = self._pending_for(match, seat)
        if not p.sealed:
            raise WrongPhase(f"step {p.step} is not sealed: post a move")
        if step is not None and step != p.step:
            raise CommitmentError(f"the current step is {p.step}, not {step}")
        # Until reveals open a seat may replace its commitment (the last one counts): a
        # client that hashed the wrong bytes can still put it right.
        committed = _sealed_progress(match, p.step)[0]
        if seat in _forfeits(match, p.step):
            raise CommitmentError(f"seat {seat} forfeited its choice in step {p.step}")
        sealed_seats = [q.seat for q in self.game.pending(match.state) if q.sealed]
        if seat in committed and all(s in committed for s in sealed_seats):
            raise CommitmentError(
                f"reveals have opened for step {p.step}: the commitment can no longer change"
            )
        return [SealCommitted(seat=seat, step=p.step, commitment=commitment)]

    def reveal(
        self, match: Match, seat: int, move: dict[str, Any], salt: str, seed: bytes
    ) -> list[Any]:
        p = self._pending_for(match, seat)
        if not p.sealed:
            raise WrongPhase(f"step {p.step} is not sealed: post a move")
        sealed_seats = [q.seat for q in self.game.pending(match.state) if q.sealed]
        committed, revealed = _sealed_progress(match, p.step)
        commits = match.commits if match.seal_step == p.step else {}
        if seat not in commits:
            raise CommitmentError(f"seat {seat} has not committed for step {p.step}")
        missing = [s for s in sealed_seats if s not in committed]
        if missing:
            raise CommitmentError(
                f"reveals open once every seat has committed; waiting for {missing}"
            )
        if seat in revealed:
            raise CommitmentError(f"seat {seat} has already revealed for step {p.step}")
        if not sealed.salt_is_valid(salt):
            raise RevealMismatch("the salt must be at least 16 bytes in hex")
        if not sealed.matches(commits[seat], match.game_id, p.step, seat, move, salt):
            text = sealed.preimage(match.game_id, p.step, seat, move, salt)
            raise RevealMismatch(
                "the move and salt do not hash to the commitment; `preimage` is the exact "
                "string the server hashed (UTF-8, SHA-256, lowercase hex)",
                preimage=text,
            )
        events: list[Any] = [SealRevealed(seat=seat, step=p.step, move=move, salt=salt)]
        if all(s in revealed or s == seat for s in sealed_seats):
            reveals = {**match.reveals, seat: events[0]}
            forfeited = _forfeits(match, p.step)
            events += self._resolve_sealed(match, p.step, sealed_seats, reveals, forfeited, seed)
        return events

    def _resolve_sealed(
        self,
        match: Match,
        step: str,
        seats: Sequence[int],
        reveals: dict[int, SealRevealed],
        forfeited: dict[int, str],
        seed: bytes,
    ) -> list[Any]:
        # The moves were chosen against the same table, so they are applied in seat order
        # against the state as it evolves; games keep sealed choices independent of each
        # other, so the order never changes their legality.
        rng = _rng(seed, match.version)
        state = match.state
        out: list[Any] = []
        for seat in sorted(seats):
            events: list[Any]
            if seat in forfeited:  # already recorded as forfeited: a bot's choice stands in
                fallback = rng.fork(f"forfeit{seat}").choice(self.game.legal(state, seat))
                events = self.game.decide(state, seat, fallback, rng.fork(f"seat{seat}"))
                for event in events:
                    state = self.game.evolve(state, event)
                out += events
                continue
            revealed = reveals[seat]
            try:
                command = msgspec.convert(revealed.move, command_union(self.game))
                events = self.game.decide(state, seat, command, rng.fork(f"seat{seat}"))
            except (msgspec.ValidationError, DomainError) as exc:
                reason = exc.detail if isinstance(exc, DomainError) else f"invalid move: {exc}"
                fallback = rng.fork(f"forfeit{seat}").choice(self.game.legal(state, seat))
                events = [SealForfeited(seat=seat, step=step, reason=reason)]
                events += self.game.decide(state, seat, fallback, rng.fork(f"seat{seat}"))
            for event in events:
                if not isinstance(event, SealForfeited):
                    state = self.game.evolve(state, event)
            out += events
        return out

    def record_result(self, match: Match) -> list[Any]:
        outcome = self.game.result(match.state)
        if outcome is None:
            raise WrongPhase("the game is not over")
        if match.recorded is not None:
            return []
        return [
            ResultRecorded(scores=outcome.scores, winners=outcome.winners, places=outcome.places)
        ]

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


def _seated(seats: list[SeatSpec], event: SeatClaimed | SeatLeft | SeatsFilled) -> list[SeatSpec]:
    """The seats after a claim, a leave or a fill (a new list)."""
    out = list(seats)
    if isinstance(event, SeatClaimed):
        out[event.seat] = SeatSpec("human", None, event.name, event.external_id)
    elif isinstance(event, SeatLeft):
        out[event.seat] = SeatSpec("open")
    else:
        for seat in event.seats:
            out[seat] = SeatSpec("bot", event.level, out[seat].name, out[seat].external_id)
    return out


def _entered(match: Match, step: str) -> Match:
    """Sealed bookkeeping belongs to one step: a new step starts afresh (a new Match)."""
    if match.seal_step == step:
        return match
    return msgspec.structs.replace(match, seal_step=step, commits={}, reveals={}, forfeited={})


def _forfeits(match: Match, step: str) -> dict[int, str]:
    return dict(match.forfeited) if match.seal_step == step else {}


def _sealed_progress(match: Match, step: str) -> tuple[set[int], set[int]]:
    """Seats that count as committed, and as revealed, in ``step`` (forfeits count as both)."""
    if match.seal_step != step:
        return set(), set()
    forfeited = set(match.forfeited)
    return set(match.commits) | forfeited, set(match.reveals) | forfeited


def _commit_seed(seed: bytes) -> str:
    from domain.rng import seed_commitment

    return seed_commitment(seed)


def event_union(game: AnyGame) -> Any:
    return tagged_union(MATCH_EVENT_TYPES + game.event_types)


def _created(event: GameCreated) -> Match:
    """A new match: version 1, waiting while it has open seats to fill."""
    invited = tuple(i for i, s in enumerate(event.seats) if s.type == "open")
    return Match(
        game_id=event.game_id,
        seats=list(event.seats),
        options=event.options,
        state=None,
        version=1,
        invited=invited,
        waiting=bool(invited),
    )


def command_union(game: AnyGame) -> Any:
    return tagged_union(game.command_types)
