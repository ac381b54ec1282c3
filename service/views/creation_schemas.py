"""Wire types of creating a game (``POST /v1/games``): the seats asked for, the body of each
game (its seat range and typed options, a tagged union built from the registry), and the
answer with each seat's token or invite. Described as service/views/schemas.py says."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, ClassVar

import msgspec

from domain import registry
from domain.descriptions import GAME_ID, GAME_NAME
from domain.engine import BotLevel, doc, tagged_union
from domain.match import Clock, ExternalId, SeatName, SeatType
from service.views.descriptions import (
    BOT_LEVEL_OR_NULL,
    EXTERNAL_ID,
    SEAT_NAME,
    SEAT_NUMBER,
    VERSION,
)


class HumanSeat(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="human", tag_field="type"
):
    """A seat played by a client; its token is returned once, at creation."""

    DESCRIBED_OUTSIDE_META: ClassVar[dict[str, str]] = {"type": "human."}

    name: SeatName = None
    external_id: ExternalId = None


class BotSeat(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="bot", tag_field="type"):
    """A seat played by the server's bot."""

    DESCRIBED_OUTSIDE_META: ClassVar[dict[str, str]] = {"type": "bot."}

    level: Annotated[
        BotLevel,
        doc(
            "random (uniform over legal moves), greedy (a one-move heuristic) or expert "
            "(a search over what the seat can know)."
        ),
    ]
    name: SeatName = None


class OpenSeat(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="open", tag_field="type"
):
    __doc__ = (
        "A seat someone claims later with its invite (returned at creation); the game "
        "waits (status waiting) until no seat is open, or until its creator fills the rest "
        "with bots."
    )

    DESCRIBED_OUTSIDE_META: ClassVar[dict[str, str]] = {"type": "open."}

    name: SeatName = None
    external_id: ExternalId = None


SeatRequest = HumanSeat | BotSeat | OpenSeat


CREATE_SEATS = (
    "Who plays each seat, in seat order (seat 0 first): a human seat (a token is returned) "
    "or a bot of a level; as many as the game allows."
)
CREATE_OPTIONS = "The game's options (see GET /v1/rules/{game}); omitted: the defaults."


class CreateGameBase(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="game"):
    __doc__ = (
        "Create a game of this kind: its seats, its options, and two settings every game "
        "has (private, turn_seconds)."
    )

    DESCRIBED_OUTSIDE_META: ClassVar[dict[str, str]] = {
        "game": "Which game (the tag).",
        "options": CREATE_OPTIONS,
    }

    seats: Annotated[list[SeatRequest], doc(CREATE_SEATS)]
    options: Any
    private: Annotated[
        bool,
        doc(
            "True: no spectator view, event log or replay for anyone but the seats and "
            "the creating API key."
        ),
    ] = False
    turn_seconds: (
        Annotated[
            int,
            msgspec.Meta(
                ge=5,
                le=7 * 24 * 3600,
                description="A turn deadline in seconds (5 to 604800): a human seat that has "
                "not acted this long after its turn began is played by a bot for that turn. "
                "Null: no deadline.",
            ),
        ]
        | None
    ) = None
    away_seconds: (
        Annotated[
            int,
            msgspec.Meta(
                ge=5,
                le=30 * 24 * 3600,
                description="Seconds (5 to 2592000): when the game awaits a human seat whose "
                "player has been away (presence) this long, its turn is played as a time-out, "
                "and so are its next turns until the player is online again (then the seat is "
                "theirs from its next turn; it is not resigned). Null: never. Needs the "
                "server's presence (STAKEOUT_PRESENCE_SECONDS above 0). Not with a clock (422 "
                "invalid-options): its bank decides when a bot plays.",
            ),
        ]
        | None
    ) = None
    public: Annotated[
        bool,
        doc(
            "True: listed in GET /v1/lobby for anyone to find (to claim an open seat or to "
            "watch). Not together with private."
        ),
    ] = False
    # Time banks: issue 34.
    clock: Annotated[
        Clock | None,
        doc(
            "Time banks: each human seat has a bank of initial_seconds, charged while the "
            "game awaits it, increment_seconds added after each of its acts (capped at the "
            "initial bank); when it runs out, on_time_out says what follows. Null: no clock. "
            "Not together with turn_seconds."
        ),
    ] = None


def _create_type(game: Any) -> type[CreateGameBase]:
    """``POST /v1/games`` body for one game: its seat range and its typed options."""
    seats = Annotated[
        list[SeatRequest],
        msgspec.Meta(
            min_length=game.min_seats, max_length=game.max_seats, description=CREATE_SEATS
        ),
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
    CreateGame = tagged_union([_create_type(g) for g in registry.games()])


class Invite(msgspec.Struct, frozen=True):
    __doc__ = (
        "An open seat's invite. The code is a secret: whoever holds it may claim the seat "
        "(once; the seat's claimer may leave before the start, and the code works again)."
    )

    code: Annotated[str, doc("The invite code (URL-safe text).")]
    url: Annotated[str, doc("Where to look at it (GET) and claim it (POST): /v1/invites/{code}.")]


class SeatGrant(msgspec.Struct, frozen=True):
    """A seat of a new game and, for a human seat, its token (shown this once)."""

    seat: Annotated[int, doc(SEAT_NUMBER)]
    type: Annotated[SeatType, doc("human, bot or open (claimed later with its invite).")]
    level: Annotated[BotLevel | None, doc(BOT_LEVEL_OR_NULL)]
    token: Annotated[
        str | None,
        doc(
            "The seat token (human seats only; null for bots and open seats): send it as "
            "`Authorization: Bearer <token>` to play this seat. Shown only here."
        ),
    ]
    name: Annotated[str | None, doc(SEAT_NAME)] = None
    external_id: Annotated[str | None, doc(EXTERNAL_ID)] = None
    invite: Annotated[
        Invite | None,
        doc(
            "An open seat's invite (null for other seats): pass it on to the person who "
            "should claim the seat."
        ),
    ] = None


class GameCreatedResponse(msgspec.Struct, frozen=True):
    """A new game: its id, version and seed commitment, and a token per human seat."""

    id: Annotated[str, doc(GAME_ID)]
    game: Annotated[str, doc(GAME_NAME)]
    version: Annotated[int, doc(VERSION)]
    seed_commitment: Annotated[
        str,
        doc(
            "hex(SHA-256(seed)) of the game's secret shuffle seed: the replay publishes the "
            "seed once the game is over, so anyone can check every shuffle."
        ),
    ]
    seats: Annotated[list[SeatGrant], doc("Every seat, in order, with the human seats' tokens.")]
