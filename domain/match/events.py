"""The match layer's own events: what every stream records beside the game's events.

A stream starts with `GameCreated` (who plays each seat, as `SeatSpec`s, and the seed's
commitment); sealed steps, deadlines, resignations, the lobby (claims, leaves, fills) and
the game's end add the others. They are stored data: tags and fields never change.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from domain.engine import AnyGame, BotLevel, PerSeat, Seat, SeatList, Step, tagged_union

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


OnTimeOut = Literal["bot_turn", "bot_seat", "lose"]

# Bounds of a clock: correspondence play needs days, a bank of 30 days is the most.
MAX_BANK_SECONDS = 30 * 24 * 3600


class Clock(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A game's clock: each human seat's time bank (issue 34). The bank is charged while
    the game awaits the seat; ``increment_seconds`` are added after each of its acts,
    capped at ``initial_seconds``."""

    initial_seconds: Annotated[
        int,
        msgspec.Meta(
            ge=5,
            le=MAX_BANK_SECONDS,
            description="Each seat's bank at the start, in seconds (5 to 2592000, 30 days).",
        ),
    ]
    increment_seconds: Annotated[
        int,
        msgspec.Meta(
            ge=0,
            le=MAX_BANK_SECONDS,
            description="Seconds added to the seat's bank after each of its acts (a move, a "
            "commitment, a reveal), the bank capped at initial_seconds (0 to 2592000).",
        ),
    ] = 0
    on_time_out: Annotated[
        OnTimeOut,
        msgspec.Meta(
            description="What happens when a seat's bank runs out. bot_turn: a bot plays "
            "that turn (a random legal move, or a forfeit in a sealed step), and the seat "
            "keeps playing with its increment as its bank; bot_seat: a bot plays the seat "
            "from then on, as after a resignation; lose: as bot_seat, and the seat is "
            "ranked last in the result's rated_places and in its rating."
        ),
    ] = "bot_seat"


class GameCreated(
    msgspec.Struct, frozen=True, tag="game.created", tag_field="type", omit_defaults=True
):
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
    clock: Annotated[
        Clock | None,
        msgspec.Meta(description="The game's clock (time banks), or null: none."),
    ] = None


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


class ClockFlagged(msgspec.Struct, frozen=True, tag="clock.flagged", tag_field="type"):
    """The seat's bank ran out (by the log's own times): the time-out's events follow
    (``turn.timed_out`` and a bot's move, or ``seal.forfeited``). With ``bot_seat`` or
    ``lose`` a bot plays the seat from here on; with ``lose`` it is ranked last."""

    seat: Seat
    on_time_out: Annotated[
        OnTimeOut, msgspec.Meta(description="The clock's on_time_out: what follows now.")
    ]


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
    went to the claimer alone; it is never in an event). ``external_id``: the player the
    game's API key bound by claiming; a seat created with one keeps that one."""

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
    ClockFlagged,
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


def event_union(game: AnyGame) -> Any:
    """Every event a stream of ``game`` may hold: the match layer's, then the game's."""
    return tagged_union(MATCH_EVENT_TYPES + game.event_types)
