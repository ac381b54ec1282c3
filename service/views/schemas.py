"""Wire types of API v1. The game-specific parts are tagged unions built from the registry,
so adding a game adds its moves, views and events to the contract without touching this."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec

from domain import registry
from domain.engine import BotLevel, HouseRule, Outcome, tagged_union
from domain.match import MATCH_EVENT_TYPES, AwaitingAction, Clock, ExternalId, SeatName, SeatType


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


class HumanSeat(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="human", tag_field="type"
):
    """A seat played by a client; its token is returned once, at creation."""

    name: SeatName = None
    external_id: ExternalId = None


class BotSeat(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="bot", tag_field="type"):
    """A seat played by the server's bot of ``level``."""

    level: BotLevel
    name: SeatName = None


class OpenSeat(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="open", tag_field="type"
):
    """A seat for someone to claim with its invite (returned at creation); the game waits
    until no seat is open."""

    name: SeatName = None
    external_id: ExternalId = None


SeatRequest = HumanSeat | BotSeat | OpenSeat


class CreateGameBase(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="game"):
    seats: list[SeatRequest]
    options: Any
    # Private: no spectator view, events or replay for anyone but the seats and the
    # API key that created the game.
    private: bool = False
    # Turn deadline: a seat that has not acted this many seconds after it became awaited
    # is played by a bot for that turn (the event says so).
    turn_seconds: Annotated[int, msgspec.Meta(ge=5, le=7 * 24 * 3600)] | None = None
    # A seat awaited while away this long has its turns played as time-outs until it is back.
    away_seconds: Annotated[int, msgspec.Meta(ge=5, le=30 * 24 * 3600)] | None = None
    # Public: listed in GET /v1/lobby (a private game never is).
    public: bool = False
    # Time banks (issue 34); not together with turn_seconds.
    clock: Clock | None = None


def _create_type(game: Any) -> type[CreateGameBase]:
    """``POST /v1/games`` body for one game: its seat range and its typed options."""
    seats = Annotated[
        list[SeatRequest], msgspec.Meta(min_length=game.min_seats, max_length=game.max_seats)
    ]
    name = "Create" + "".join(part.title() for part in game.name.split("_")) + "Game"
    created: Any = msgspec.defstruct(
        name,
        [
            ("seats", seats),
            ("options", game.options_type, msgspec.field(default_factory=game.options_type)),
        ],
        bases=(CreateGameBase,),
        tag=game.name,
        frozen=True,
        forbid_unknown_fields=True,
        module=__name__,
    )
    assert issubclass(created, CreateGameBase)
    result: type[CreateGameBase] = created
    return result


if TYPE_CHECKING:
    CreateGame = CreateGameBase
else:
    CreateGame = tagged_union([_create_type(g) for g in _games])


class Invite(msgspec.Struct, frozen=True):
    """An open seat's invite: pass the code (or the URL) to the person who should sit there."""

    code: str
    url: str


class SeatGrant(msgspec.Struct, frozen=True):
    """A seat of a new game; ``token`` (human seats only) is shown this once."""

    seat: int
    type: SeatType
    level: BotLevel | None
    token: str | None
    name: str | None = None
    external_id: str | None = None
    invite: Invite | None = None


class GameCreatedResponse(msgspec.Struct, frozen=True):
    id: str
    game: str
    version: int
    seed_commitment: str
    seats: list[SeatGrant]


class Presence(msgspec.Struct, frozen=True):
    """Whether a seat's player is at the table (service/play/presence.py)."""

    status: Literal["online", "away", "never"]
    last_seen_ms: int | None


class Substitution(msgspec.Struct, frozen=True):
    """A bot plays an away seat's turns (the game's ``away_seconds``) until its player is back."""

    since_ms: int
    until: Literal["back"] = "back"


class SeatClock(msgspec.Struct, frozen=True):
    """A seat's time bank (a game with a clock)."""

    remaining_ms: int
    running: bool


class SeatInfo(msgspec.Struct, frozen=True):
    seat: int
    type: SeatType
    level: BotLevel | None
    # The seat's player resigned: a bot (``type`` bot, ``level`` random) plays it now.
    resigned: bool = False
    name: str | None = None
    external_id: str | None = None
    open: bool = False
    # Views only (null in the game list, and for seats no person plays).
    presence: Presence | None = None
    substituted: Substitution | None = None
    clock: SeatClock | None = None


# "waiting": a seat is open (the game starts once every seat is claimed or filled).
# "abandoned": nobody acted for a long time; the sweep ended the game without a result.
# "aborted": the API key that created the game ended it unfinished (no result).
GameStatus = Literal["waiting", "active", "finished", "abandoned", "aborted"]


class RematchLink(msgspec.Struct, frozen=True):
    """The next game of this table (POST /v1/games/{id}/rematch made it)."""

    game_id: str


class GameView(msgspec.Struct, frozen=True):
    """Everything the caller may know now. Every item of ``legal`` can be posted as is."""

    id: str
    game: str
    version: int
    status: GameStatus
    you: int | None
    seats: list[SeatInfo]
    awaiting: list[AwaitingAction]
    legal: list[Move]
    state: StateView
    result: Outcome | None
    rematch: RematchLink | None = None
    server_time_ms: int = 0


class EventRecord(msgspec.Struct, frozen=True):
    version: int
    event: Event
    at_ms: int = 0


class MoveAccepted(msgspec.Struct, frozen=True):
    """The new version, the events the caller may see and the seats awaited now; with
    ``Prefer: return=representation``, also the caller's view after the act (``view``)."""

    version: int
    events: list[EventRecord]
    awaiting: list[AwaitingAction]
    replayed: bool = False
    view: GameView | None = None


class EventPage(msgspec.Struct, frozen=True):
    events: list[EventRecord]
    next_after: int
    has_more: bool


class Commit(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """hex(SHA-256("sealed-v1|{game_id}|{step}|{seat}|{move}|{salt}")); ``step`` optional guard."""

    commitment: Hex64
    step: str | None = None


class Reveal(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The committed move, exactly as hashed (canonical JSON of this object), and its salt."""

    move: Move
    salt: Salt


class RulesDocument(msgspec.Struct, frozen=True):
    """``house_rules``: what this server decided where the rulebook is silent, open or
    incomplete, in plain text; ``rules`` holds the numbers those decisions use."""

    game: str
    title: str
    min_seats: int
    max_seats: int
    bot_levels: list[BotLevel]
    rules: RulesData
    house_rules: list[HouseRule]


class GameList(msgspec.Struct, frozen=True):
    games: list[str]


class GameSummary(msgspec.Struct, frozen=True):
    id: str
    game: str
    status: GameStatus
    version: int
    created_ms: int
    seats: list[SeatInfo]
    awaiting: list[AwaitingAction]
    result: Outcome | None
    # The places ratings and players' histories count (a resigned seat below the others).
    rated_places: list[int] | None = None


class GamePage(msgspec.Struct, frozen=True):
    """A page of the caller's games, newest first; pass ``next_cursor`` to continue."""

    games: list[GameSummary]
    next_cursor: str | None


class Health(msgspec.Struct, frozen=True, omit_defaults=True):
    status: Literal["ok"]
    # /readyz only, once this process has found the event store behind its warm cache.
    store_regressions: int | None = None
    last_store_regression_ms: int | None = None
    # /readyz only: the changes not yet followed up (service/store/outbox.py), over all
    # shards: not yet read by a dispatcher, and read but not yet done.
    outbox_lag: int | None = None
    outbox_pending: int | None = None
