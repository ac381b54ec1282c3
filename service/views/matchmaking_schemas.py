"""Wire types of matchmaking (issue 30): a ticket's request (one per game, its seat counts
and options typed), the ticket as its holder and its API key see it, and its match.
Described in code (field metadata); the design is in service/matchmaking/."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, ClassVar

import msgspec

from domain import registry
from domain.descriptions import GAME_ID, GAME_NAME
from domain.engine import BotLevel, tagged_union
from domain.match import Clock, SeatName
from service.matchmaking.tickets import DEFAULT_CLOCK, Ticket, TicketStatus
from service.views.descriptions import EXTERNAL_ID_RULE, SEAT_NAME_GIVEN


def _d(text: str) -> msgspec.Meta:
    return msgspec.Meta(description=text)


class TicketPlayer(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Who the ticket seats: a player of the API key (its external_id) and a seat name."""

    external_id: Annotated[
        str,
        msgspec.Meta(
            min_length=1,
            max_length=200,
            description="The player: your backend's user id (1 to 200 characters). Its "
            "rating in the game places it among players of its strength; no game seats it "
            "twice. " + EXTERNAL_ID_RULE,
        ),
    ]
    name: Annotated[SeatName, _d(SEAT_NAME_GIVEN)] = None


TICKET_OPTIONS = (
    "The game's options (see GET /v1/rules/{game}); a ticket is matched only with tickets "
    "asking for the same. Omitted: the defaults."
)


class CreateTicketBase(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="game"):
    # The schema's description, one line (as service/views/schemas.py writes them), and
    # what no field Meta can describe: the tag, and the Struct-typed fields.
    __doc__ = (
        "Ask for a game of this kind for one player: the matcher seats it with players of its "
        "strength (and bots, when asked) in one of the seat counts it accepts."
    )

    DESCRIBED_OUTSIDE_META: ClassVar[dict[str, str]] = {
        "game": "Which game (the tag).",
        "player": "Who the ticket seats: a player of the API key and a seat name.",
        "options": TICKET_OPTIONS,
    }

    player: TicketPlayer
    seats: Any
    options: Any
    bots_after_seconds: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1,
                le=3600,
                description="Wait this long (1 to 3600 seconds) for people, then bots fill "
                "the seats nobody took; null: never (only people).",
            ),
        ]
        | None
    ) = None
    bot_level: Annotated[BotLevel, _d("The level of the bots that fill seats.")] = "greedy"
    expires_in_seconds: Annotated[
        int,
        msgspec.Meta(
            ge=10, le=3600, description="Unmatched this long after creation, the ticket expires."
        ),
    ] = 300
    clock: Annotated[
        Clock | None,
        _d(
            "The matched game's clock (time banks; see POST /v1/games); tickets match only "
            "with tickets asking for the same. Null: the default, 300 s with 10 s added "
            "after each act, a bot playing the seat once its time runs out (bot_seat)."
        ),
    ] = None


def _ticket_type(game: Any) -> type[CreateTicketBase]:
    """``POST /v1/matchmaking/tickets`` body for one game: its seat counts and options."""
    counts = list(range(game.min_seats, game.max_seats + 1))
    # The range of a count is checked by the ticket desk (422 invalid-options): the
    # document generator leaves item bounds out, and the contract must say what 400 means.
    seats = Annotated[
        list[int],
        msgspec.Meta(
            min_length=1,
            max_length=len(counts),
            description=f"The seat counts the player accepts ({game.min_seats} to "
            f"{game.max_seats}; all of them unless given).",
        ),
    ]
    name = "Create" + "".join(part.title() for part in game.name.split("_")) + "Ticket"
    made: Any = msgspec.defstruct(
        name,
        [
            ("seats", seats, msgspec.field(default_factory=lambda: list(counts))),
            ("options", game.options_type, msgspec.field(default_factory=game.options_type)),
        ],
        bases=(CreateTicketBase,),
        tag=game.name,
        frozen=True,
        forbid_unknown_fields=True,
        module=__name__,
    )
    assert issubclass(made, CreateTicketBase)
    result: type[CreateTicketBase] = made
    return result


if TYPE_CHECKING:
    CreateTicket = CreateTicketBase
else:
    CreateTicket = tagged_union([_ticket_type(g) for g in registry.games()])


class TicketMatch(msgspec.Struct, frozen=True):
    """The game the ticket was matched into and its seat there."""

    game_id: Annotated[str, _d(GAME_ID)]
    seat: Annotated[int, _d("The ticket's seat in the game (0-based).")]
    token: Annotated[
        str | None,
        _d(
            "The seat token (send it as `Authorization: Bearer <token>` to play the seat): "
            "given to the ticket's secret only, the same on every read; null for the API "
            "key. Never stored: it is derived from the secret."
        ),
    ]


STATUS_TEXT = (
    "waiting: not matched yet; matching: seated, its game being made (a moment); matched: "
    "`match` says where; cancelled: by DELETE (only its answer says so: a cancelled ticket is "
    "gone); expired: unmatched until expires_ms."
)


class TicketView(msgspec.Struct, frozen=True):
    """A matchmaking ticket: what it asks for, and once matched, its game and seat."""

    id: Annotated[str, _d("The ticket's id (24 hex digits).")]
    game: Annotated[str, _d(GAME_NAME)]
    status: Annotated[TicketStatus, _d(STATUS_TEXT)]
    player: Annotated[TicketPlayer, _d("Who the ticket seats.")]
    seats: Annotated[list[int], _d("The seat counts it accepts, ascending.")]
    options: Annotated[dict[str, Any], _d("The game's options, defaults filled in.")]
    bots_after_seconds: Annotated[
        int | None, _d("Seconds of waiting after which bots fill; null: never.")
    ]
    bot_level: Annotated[BotLevel, _d("The level of the bots that fill seats.")]
    created_ms: Annotated[int, _d("When it was made (epoch milliseconds).")]
    expires_ms: Annotated[int, _d("When it expires unless matched (epoch milliseconds).")]
    clock: Annotated[Clock, _d("The matched game's clock (the default when none was asked).")]
    match: Annotated[
        TicketMatch | None, _d("The game and seat once matched; null before (and if never).")
    ]


class TicketCreated(TicketView, frozen=True):
    """The new ticket and its secret, shown this once."""

    secret: Annotated[
        str,
        _d(
            "The ticket's secret: send it as `Authorization: Bearer <secret>` to read the "
            "ticket (with its seat token once matched) or cancel it. Give it to the player's "
            "app; the server keeps only its hash."
        ),
    ]


def ticket_view(ticket: Ticket, now_ms: int, token: str | None) -> dict[str, Any]:
    """The fields of `TicketView` for ``ticket`` (``token``: for its secret's holder)."""
    spec = ticket.spec
    status = ticket.status_at(now_ms)
    match = None
    if status == "matched" and ticket.game_id is not None and ticket.seat is not None:
        match = TicketMatch(ticket.game_id, ticket.seat, token)
    return {
        "id": ticket.id,
        "game": spec.game,
        "status": status,
        "player": TicketPlayer(spec.external_id, spec.name),
        "seats": spec.seats,
        "options": spec.options,
        "bots_after_seconds": None if spec.bots_after_ms is None else spec.bots_after_ms // 1000,
        "bot_level": spec.bot_level,
        "created_ms": spec.created_ms,
        "expires_ms": spec.expires_ms,
        "clock": spec.clock or DEFAULT_CLOCK,
        "match": match,
    }
