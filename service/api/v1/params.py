"""The request parameters the routes share (headers, path and query parameters), each
declared once with its contract, and how a handler names an injected collaborator."""

from __future__ import annotations

from typing import Annotated, Literal, TypeVar

from litestar.params import HeaderParameter, PathParameter, QueryParameter, SkipValidationMarker

# A handler parameter of one of the process's collaborators, injected by name (the app's
# dependencies, service/app.py): ``games: Injected[GameService]``. Not validated: it is the
# app's own object (checking it per request would cost more than the handler), and never
# a request parameter, so never in the OpenAPI document.
T = TypeVar("T")
Injected = Annotated[T, SkipValidationMarker()]

GameId = Annotated[
    str,
    PathParameter(description="The game id returned at creation", pattern="^[0-9a-f]{24}$"),
]
Authorization = Annotated[
    str | None,
    HeaderParameter(
        name="Authorization", description="Bearer seat token or API key", required=False
    ),
]
# A page of a listing: where the previous page ended, and how many to list.
PageCursor = Annotated[
    str | None,
    QueryParameter(
        required=False,
        pattern="^[0-9]{1,15}-[0-9a-f]{24}$",
        description="From the previous page's next_cursor",
    ),
]
PageLimit = Annotated[int, QueryParameter(ge=1, le=100, description="Page size")]
# The live feeds' format, asked for with Accept: JSON lines or Server-Sent Events.
FeedAccept = Annotated[
    str | None,
    HeaderParameter(
        name="Accept",
        required=False,
        description="application/x-ndjson for JSON lines; otherwise Server-Sent Events",
    ),
]
# An Idempotency-Key, in its header or in a play socket's act (service/api/v1/play.py).
IDEMPOTENCY_KEY_PATTERN = "^[A-Za-z0-9_.:-]{1,128}$"
IdempotencyKey = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        required=False,
        description="Repeat a request safely: the same key and body answer the first result",
        pattern=IDEMPOTENCY_KEY_PATTERN,
    ),
]
IfNoneMatch = Annotated[
    str | None,
    HeaderParameter(
        name="If-None-Match",
        required=False,
        description=(
            "The ETag of a copy the client holds (the game's version, quoted): 304 without "
            "a body while the game is still at that version"
        ),
    ),
]
IfMatch = Annotated[
    str | None,
    HeaderParameter(
        name="If-Match",
        required=False,
        description="Apply only at this version (an integer, quoted or not); 412 otherwise",
        pattern='^"?[0-9]{1,9}"?$',
    ),
]
PreferHeader = Annotated[
    str | None,
    HeaderParameter(
        name="Prefer",
        required=False,
        description=(
            "RFC 7240. `return=representation`: the answer also carries the caller's view "
            "of the game after the act (`view`, as GET /v1/games/{id} gives it to this seat),"
            " so no GET is needed; `Preference-Applied` confirms it."
        ),
        max_length=256,
    ),
]


# The live feed's parameters (GET /v1/games/{id}/stream).
LastEventId = Annotated[
    str | None,
    HeaderParameter(
        name="Last-Event-ID",
        required=False,
        pattern="^[0-9]{1,9}$",
        description="Resume after this version",
    ),
]
# Any version below the first (a negative one too) starts at the beginning of the log.
StreamAfter = Annotated[
    int | None,
    QueryParameter(le=10**9, required=False, description="Start after this version"),
]
StreamFeed = Annotated[
    Literal["events", "view"],
    QueryParameter(
        description="events: the event records; view: the caller's view after each batch"
    ),
]
StreamTicketParameter = Annotated[
    str | None,
    QueryParameter(
        required=False,
        max_length=128,
        description="A single-use stream ticket (POST /v1/games/{id}/stream-tickets) "
        "instead of Authorization",
    ),
]
