"""Wire types of API v1. The game-specific parts are tagged unions built from the registry,
so adding a game adds its moves, views and events to the contract without touching this.

Each type says what it means in the contract (OpenAPI) itself: its docstring is its
schema's description, each field's ``doc(...)`` its property's. A description longer than
a docstring line is written ``__doc__ = (...)``: a wrapped docstring keeps its line breaks
in the contract. What no field ``Meta`` can describe (a tag; a field of a Struct type, which
the document generator would wrap in ``allOf``) is in ``DESCRIBED_OUTSIDE_META``
(service/http/openapi/schema_descriptions.py). A test fails when a schema or a property has
no description."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec

from domain import registry
from domain.descriptions import AT_MS, GAME_ID, GAME_NAME
from domain.engine import BotLevel, HouseRule, Outcome, doc, tagged_union
from domain.match import MATCH_EVENT_TYPES, AwaitingAction, Clock, SeatType
from service.views.descriptions import (
    AWAITING,
    BOT_LEVEL_OR_NULL,
    EXTERNAL_ID,
    RESULT,
    SEAT_NAME,
    SEAT_NUMBER,
    SEATS,
    STATUS,
    VERSION,
)


def _strict(command: type[msgspec.Struct]) -> type[msgspec.Struct]:
    """``command`` refusing unknown fields (same name, tag and fields), for request bodies.

    The domain's commands tolerate extra fields (stored moves predate this rule); the API
    refuses them, as it refuses wrong types (service/http/requests.py decodes strictly).
    """
    strict: Any = msgspec.defstruct(
        command.__name__,
        [],
        bases=(command,),
        forbid_unknown_fields=True,
        module=command.__module__,
    )
    result: type[msgspec.Struct] = strict
    return result


_RULES_DATA: dict[str, type[msgspec.Struct]] = {}


def rules_data_type(game: Any) -> type[msgspec.Struct]:
    """The game's rules Struct, tagged by ``rules_of`` so the games' rules form a union."""
    if game.name not in _RULES_DATA:
        tagged: Any = msgspec.defstruct(
            game.rulebook_type.__name__ + "Data",
            [],
            bases=(game.rulebook_type,),
            tag=game.name,
            tag_field="rules_of",
            module=__name__,
        )
        _RULES_DATA[game.name] = tagged
    return _RULES_DATA[game.name]


def rules_data(game: Any) -> Any:
    fields = msgspec.to_builtins(game.rulebook())
    return msgspec.convert({**fields, "rules_of": game.name}, rules_data_type(game))


if TYPE_CHECKING:
    Move = Any
    Event = Any
    StateView = Any
    RulesData = Any
    GameName = str
else:
    _games = registry.games()
    Move = tagged_union([_strict(t) for g in _games for t in g.command_types])
    Event = tagged_union(list(MATCH_EVENT_TYPES) + [t for g in _games for t in g.event_types])
    StateView = tagged_union([g.view_type for g in _games])
    RulesData = tagged_union([rules_data_type(g) for g in _games])
    GameName = Literal[tuple(g.name for g in _games)]

Hex64 = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$", description="64 hex digits")]
Salt = Annotated[
    str,
    msgspec.Meta(
        pattern="^([0-9a-f]{2}){16,64}$",
        description=(
            "16 to 64 random bytes as lowercase hex (32 to 128 digits), hashed as that text"
        ),
    ),
]


# Presence is kept by service/play/presence.py.
class Presence(msgspec.Struct, frozen=True):
    __doc__ = (
        "Whether a seat's player is at the table: online while a live feed of the seat is "
        "open (SSE, NDJSON, a long poll) or its token made a request in the last "
        "STAKEOUT_PRESENCE_SECONDS; away after that; never when it has not been seen. Not a "
        "fact of the game: it is not in the event log."
    )

    status: Annotated[
        Literal["online", "away", "never"],
        doc("online, away or never (not seen since the game began)."),
    ]
    last_seen_ms: Annotated[
        int | None,
        doc(
            "When the seat was last seen (epoch milliseconds, server clock): about now while "
            "online; null when never seen."
        ),
    ]


class Substitution(msgspec.Struct, frozen=True):
    __doc__ = (
        "A bot plays the seat's turns (as time-outs, recorded as `turn.timed_out` or "
        "`seal.forfeited`) because its player was away too long; the seat is not resigned."
    )

    since_ms: Annotated[int, doc("When the first of those turns was played (epoch milliseconds).")]
    until: Annotated[
        Literal["back"],
        doc("back: it ends when the player is online again; the seat's next turn is theirs."),
    ] = "back"


class SeatClock(msgspec.Struct, frozen=True):
    __doc__ = (
        "A seat's time bank, derived from the event log's times. In a view it is as of "
        "server_time_ms; in the game list and the lobby, as of the game's last change. While "
        "running, a client counts down from remaining_ms, starting at server_time_ms."
    )

    remaining_ms: Annotated[
        int, doc("What is left of the bank (milliseconds, 0 once its flag fell).")
    ]
    running: Annotated[
        bool, doc("True while the game awaits the seat (its bank is being charged).")
    ]


class SeatInfo(msgspec.Struct, frozen=True):
    """Who plays a seat now."""

    seat: Annotated[int, doc(SEAT_NUMBER)]
    type: Annotated[
        SeatType,
        doc(
            "human: played by a client with the seat token; bot: by the server; open: "
            "waiting to be claimed with its invite."
        ),
    ]
    level: Annotated[BotLevel | None, doc(BOT_LEVEL_OR_NULL)]
    resigned: Annotated[
        bool, doc("True when the seat's player resigned: a bot (level random) plays it.")
    ] = False
    name: Annotated[str | None, doc(SEAT_NAME)] = None
    external_id: Annotated[str | None, doc(EXTERNAL_ID)] = None
    open: Annotated[bool, doc("True while the seat waits to be claimed with its invite.")] = False
    presence: Annotated[
        Presence | None,
        doc(
            "Whether the seat's player is at the table now (docs/api-guide.md, "
            '"Presence"); null for a seat no person plays (a bot, a resigned or open seat), '
            "in the game list, once the game is over, and when the server's presence is off."
        ),
    ] = None
    substituted: Annotated[
        Substitution | None,
        doc(
            "Set while a bot plays this seat's turns because its player has been away "
            "`away_seconds` (the game's option); null otherwise, and once the player is back."
        ),
    ] = None
    clock: Annotated[
        SeatClock | None, doc("The seat's time bank in a game with a clock, null without one.")
    ] = None


# "waiting": a seat is open (the game starts once every seat is claimed or filled).
# "abandoned": nobody acted for a long time; the sweep ended the game without a result.
# "aborted": the API key that created the game ended it unfinished (no result).
GameStatus = Literal["waiting", "active", "finished", "abandoned", "aborted"]


class RematchLink(msgspec.Struct, frozen=True):
    """The next game of this table."""

    game_id: Annotated[str, doc("The rematch's game id (24 hex digits).")]


class GameView(msgspec.Struct, frozen=True):
    __doc__ = (
        "Everything the caller may know now: its seat's view (or a spectator's), who must "
        "act, and every move it may make. Every item of `legal` can be posted as is."
    )

    id: Annotated[str, doc(GAME_ID)]
    game: Annotated[str, doc(GAME_NAME)]
    version: Annotated[int, doc(VERSION)]
    status: Annotated[GameStatus, doc(STATUS)]
    you: Annotated[
        int | None, doc("The caller's seat number, or null for a spectator (no seat token).")
    ]
    seats: Annotated[list[SeatInfo], doc(SEATS)]
    awaiting: Annotated[list[AwaitingAction], doc(AWAITING)]
    legal: Annotated[
        list[Move],
        doc(
            "Every move the caller's seat may post now, complete (post one as is to /moves, "
            "or commit to one in a sealed step); empty when it has nothing to do or must "
            "reveal."
        ),
    ]
    state: Annotated[
        StateView,
        doc(
            "What the caller may see of the game: a per-game view (its `game` field says "
            "which), redacted for the caller's seat."
        ),
    ]
    result: Annotated[Outcome | None, doc(RESULT)]
    rematch: Annotated[
        RematchLink | None,
        doc(
            "The next game of this table once someone asked for a rematch "
            "(POST /v1/games/{id}/rematch); null before."
        ),
    ] = None
    server_time_ms: Annotated[
        int,
        doc(
            "The server's time when it made this view (epoch milliseconds): count a seat's "
            "clock down from here rather than from the client's own clock."
        ),
    ] = 0
    clock: Annotated[
        Clock | None,
        doc(
            "The game's clock as it was created (each seat's initial bank, the increment, "
            "what a time-out does); null without a clock. Each seat's bank now is its "
            "`clock` in `seats`."
        ),
    ] = None


class EventRecord(msgspec.Struct, frozen=True):
    """One event of the log, redacted for the caller."""

    version: Annotated[
        int, doc("The game's version after this event (its position in the log, from 1).")
    ]
    event: Annotated[Event, doc("What happened; `type` says which event.")]
    at_ms: Annotated[int, doc(AT_MS)] = 0


class MoveAccepted(msgspec.Struct, frozen=True):
    """The game's new version and the events the caller's act produced (redacted for the caller)."""

    version: Annotated[int, doc(VERSION)]
    events: Annotated[
        list[EventRecord], doc("The events this act appended, as the caller may see them.")
    ]
    awaiting: Annotated[
        list[AwaitingAction],
        doc(
            "Who the game waits for after the act, and for what (public: the same list the "
            "view's `awaiting` shows), so a client knows whose turn it is without reading the "
            "view. For a repeated Idempotency-Key: as the game is now."
        ),
    ]
    replayed: Annotated[
        bool,
        doc("True when this answers a repeated Idempotency-Key: nothing new was appended."),
    ] = False
    view: Annotated[
        GameView | None,
        doc(
            "With `Prefer: return=representation` only: the caller's view after the act, as "
            "GET /v1/games/{id} gives it (then `Preference-Applied: return=representation`)."
        ),
    ] = None


class EventPage(msgspec.Struct, frozen=True):
    """A page of the event log, oldest first."""

    events: Annotated[list[EventRecord], doc("The events after `after`, at most `limit` of them.")]
    next_after: Annotated[
        int, doc("Pass it as `after` to read the next page (the last version here).")
    ]
    has_more: Annotated[bool, doc("True when more events follow this page.")]


class Commit(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    __doc__ = (
        "A sealed commitment: hex(SHA-256(UTF-8 'sealed-v1|{game_id}|{step}|{seat}|{move}|"
        "{salt}')), `move` being the move's JSON with sorted keys and no spaces. A seat may "
        "commit again until every seat has committed; the last one counts."
    )

    commitment: Hex64
    step: Annotated[
        str | None,
        doc(
            "Optional guard: the step the commitment is for (refused if the game is at "
            "another step)."
        ),
    ] = None


class Reveal(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The committed move and its salt, once every seat of the step has committed."""

    move: Annotated[
        Move, doc("The move exactly as committed (its canonical JSON is what was hashed).")
    ]
    salt: Salt


class RulesDocument(msgspec.Struct, frozen=True):
    __doc__ = (
        "A game's rules data: seats, bot levels, the numbers its rules use, its options and "
        "the house rules this server plays by."
    )

    game: Annotated[str, doc(GAME_NAME)]
    title: Annotated[str, doc("The game's printed title.")]
    min_seats: Annotated[int, doc("Fewest seats a game may be created with.")]
    max_seats: Annotated[int, doc("Most seats a game may be created with.")]
    bot_levels: Annotated[list[BotLevel], doc("The bot levels a bot seat may have.")]
    rules: Annotated[
        RulesData,
        doc("The game's rules data (decks, tables, options, moves); `rules_of` says which game."),
    ]
    house_rules: Annotated[
        list[HouseRule],
        doc(
            "What this server decided where the rulebook is silent, open or incomplete, in "
            "plain text."
        ),
    ]


class GameList(msgspec.Struct, frozen=True):
    """The games this server runs."""

    games: Annotated[list[str], doc("Their names.")]


class GameSummary(msgspec.Struct, frozen=True):
    """One game in a listing: the spectator's facts, without the board."""

    id: Annotated[str, doc(GAME_ID)]
    game: Annotated[str, doc(GAME_NAME)]
    status: Annotated[GameStatus, doc(STATUS)]
    version: Annotated[int, doc(VERSION)]
    created_ms: Annotated[int, doc("When the game was created (epoch milliseconds).")]
    seats: Annotated[list[SeatInfo], doc(SEATS)]
    awaiting: Annotated[list[AwaitingAction], doc(AWAITING)]
    result: Annotated[Outcome | None, doc(RESULT)]
    rated_places: Annotated[
        list[int] | None,
        doc(
            "Each seat's place as ratings, wins and the players' histories count it, "
            "indexed by seat number (1, 1, 3 as in `result`): the result's places, except "
            "that every seat whose player resigned is placed below every seat whose player "
            "did not (they share the last place), wherever the bot that took it over "
            "finished. `result` still says what was played. Null while the game has no "
            "result."
        ),
    ] = None


class GamePage(msgspec.Struct, frozen=True):
    """A page of the caller's games, newest first."""

    games: Annotated[list[GameSummary], doc("The games of this page.")]
    next_cursor: Annotated[
        str | None, doc("Pass it as `cursor` for the next page; null on the last page.")
    ]


class Health(msgspec.Struct, frozen=True, omit_defaults=True):
    """The process answers."""

    status: Annotated[Literal["ok"], doc("Always ok.")]
    store_regressions: Annotated[
        int | None,
        doc(
            "/readyz only: how many times this process found the event store behind its "
            "warm cache (a restore, a failover to a lagging replica) and reloaded."
        ),
    ] = None
    last_store_regression_ms: Annotated[
        int | None, doc("/readyz only: when it last did (epoch milliseconds).")
    ] = None
    # The outbox: service/store/outbox.py.
    outbox_lag: Annotated[
        int | None,
        doc(
            "/readyz only: changes of games whose follow-ups (bot turns, deadlines, "
            "webhooks, feed entries, scoring) no dispatcher has taken yet, over all outbox "
            "shards."
        ),
    ] = None
    outbox_pending: Annotated[
        int | None, doc("/readyz only: changes a dispatcher has taken and not yet finished.")
    ] = None
