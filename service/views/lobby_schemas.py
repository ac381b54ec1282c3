"""Wire types of the lobby and feeds (issue 16): invites, seats, rematches, stream
tickets, the public lobby and the account feed. Described in code (field metadata)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from domain.descriptions import GAME_ID, GAME_NAME
from domain.engine import BotLevel
from domain.match import ExternalId, SeatName
from service.views.descriptions import EXTERNAL_ID_RULE, SEAT_NAME_GIVEN, SEAT_NUMBER, STATUS
from service.views.schemas import GameStatus, GameSummary, SeatInfo


def _d(text: str) -> msgspec.Meta:
    return msgspec.Meta(description=text)


SeatNumber = Annotated[int, _d(SEAT_NUMBER)]


class InviteInfo(msgspec.Struct, frozen=True):
    """What an invite leads to: the game, the seat it claims and who sits where."""

    game_id: Annotated[str, _d(GAME_ID)]
    game: Annotated[str, _d(GAME_NAME)]
    seat: Annotated[int, _d("The seat this invite claims (0-based).")]
    status: Annotated[GameStatus, _d(STATUS)]
    seats: Annotated[list[SeatInfo], _d("Who plays each seat now (open: not claimed yet).")]
    options: Annotated[dict[str, Any], _d("The game's options, defaults filled in.")]


class ClaimRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Who claims the seat (both optional: send {} to stay anonymous). With the invite code
    alone, a name only; an external_id needs the game's API key."""

    name: Annotated[SeatName, _d(SEAT_NAME_GIVEN)] = None
    external_id: Annotated[
        ExternalId,
        _d(
            "The player the API key that created the game seats here (up to 200 "
            "characters): only that key, sent as `Authorization: Bearer <API key>`, binds "
            "one (422 `identity-needs-api-key` with the invite code alone). A seat created "
            "with an external_id keeps it: send that one or none (409 `seat-bound`). "
            + EXTERNAL_ID_RULE
        ),
    ] = None


class ClaimedSeat(msgspec.Struct, frozen=True):
    """The claimed seat and its token, shown this once."""

    game_id: Annotated[str, _d(GAME_ID)]
    seat: SeatNumber
    token: Annotated[
        str,
        _d(
            "The seat token: send it as `Authorization: Bearer <token>` to play the seat "
            "(and to get stream tickets). Shown only here."
        ),
    ]


class FillRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The bots that take every open seat."""

    level: Annotated[BotLevel, _d("The bots' level: random, greedy or expert.")]


class RematchCreatedResponse(msgspec.Struct, frozen=True):
    """The next game of the table; for a seat token's caller, its seat there and its
    token (the same on every call)."""

    game_id: Annotated[str, _d("The rematch's game id (24 hex digits).")]
    seat: Annotated[
        int | None,
        _d("The caller's seat in the rematch (its old seat + 1, wrapping); null for the API key."),
    ] = None
    token: Annotated[
        str | None,
        _d(
            "The caller's seat token in the rematch (seat token callers only; the same on "
            "every call); null for the API key."
        ),
    ] = None


class StreamTicket(msgspec.Struct, frozen=True):
    """A single-use ticket for opening a live feed without an Authorization header
    (a browser's EventSource): pass it as `?ticket=`."""

    ticket: Annotated[str, _d("The ticket (URL-safe text). Works once, until expires_at_ms.")]
    expires_at_ms: Annotated[int, _d("When it stops working (epoch milliseconds).")]


class LobbyPage(msgspec.Struct, frozen=True):
    """A page of public games, newest first; pass ``next_cursor`` to continue."""

    games: Annotated[list[GameSummary], _d("The public games of this page.")]
    next_cursor: Annotated[
        str | None, _d("Pass it as `cursor` for the next page; null on the last page.")
    ]


FeedKind = Literal[
    "seat.awaited",
    "game.started",
    "game.finished",
    "game.aborted",
    "rematch.created",
    "match.found",
]
