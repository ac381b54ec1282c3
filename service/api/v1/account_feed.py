"""GET /v1/feed: one live feed of all the calling API key's games
(service/notify/account_feed.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, get, post
from litestar.params import HeaderParameter, QueryParameter
from litestar.response import ServerSentEvent, ServerSentEventMessage, Stream

from service.api.v1.ndjson import NdjsonStream, wants_ndjson
from service.api.v1.params import Authorization, FeedAccept, Injected
from service.http.route_contract import ANYONE, API_KEY, problems
from service.live.access import feed_ticket_owner
from service.live.errors import TokenInUrl
from service.live.tickets import Grant, TicketStore
from service.notify.account_feed import AccountFeed, messages
from service.play.access import Access
from service.play.errors import Unauthorized
from service.views.lobby_schemas import StreamTicket

FeedCursor = "^[0-9]{1,20}-[0-9]{1,20}$"
_encoder = msgspec.json.Encoder()


async def _sse(items: AsyncIterator[tuple[str | None, dict[str, Any]]]) -> AsyncIterator[Any]:
    async for entry_id, note in items:
        if entry_id is None:
            yield ServerSentEventMessage(data=None, comment="ping")
        else:
            yield ServerSentEventMessage(
                data=_encoder.encode(note).decode(), event=str(note["kind"]), id=entry_id
            )


async def _ndjson(items: AsyncIterator[tuple[str | None, dict[str, Any]]]) -> AsyncIterator[bytes]:
    async for entry_id, note in items:
        yield _encoder.encode(note if entry_id is None else {**note, "cursor": entry_id}) + b"\n"


class AccountFeedController(Controller):
    path = "/v1/feed"
    tags = ["feeds"]

    @get(
        "/",
        operation_id="streamAccountFeed",
        responses=problems(401, 406),
        security=[API_KEY, ANYONE],
        summary="Live feed of all the API key's games (SSE or NDJSON)",
        description=(
            "The API key (Authorization), or `?ticket=` from POST /v1/feed/tickets (a "
            "browser's EventSource). One message per happening in any of the key's games: "
            "seat.awaited, game.started, game.finished (played out or abandoned), "
            "game.aborted, rematch.created; each is the JSON of a webhook notification of "
            "that kind (with the seats' names and external ids, never a token). SSE: `id` is "
            "the feed's cursor, `event` the kind; with `Accept: application/x-ndjson` one "
            "JSON object per line with `kind` and `cursor`. Resume with `Last-Event-ID` (or "
            "`after`): the feed continues exactly after it; without, it starts now. The "
            "feed is recorded while the key uses it (7 days after its last opening)."
        ),
        media_type="text/event-stream",
    )
    async def stream_feed(  # noqa: PLR0913 - HTTP parameters and collaborators
        self,
        request: Request[Any, Any, Any],
        access: Injected[Access],
        tickets: Injected[TicketStore],
        account_feed: Injected[AccountFeed],
        authorization: Authorization = None,
        accept: FeedAccept = None,
        last_event_id: Annotated[
            str | None,
            HeaderParameter(
                name="Last-Event-ID",
                required=False,
                pattern=FeedCursor,
                description="Resume after this cursor (an SSE id of this feed)",
            ),
        ] = None,
        after: Annotated[
            str | None,
            QueryParameter(
                required=False, pattern=FeedCursor, description="Resume after this cursor"
            ),
        ] = None,
        ticket: Annotated[
            str | None,
            QueryParameter(
                required=False,
                max_length=128,
                description="A single-use ticket from POST /v1/feed/tickets instead of "
                "Authorization",
            ),
        ] = None,
    ) -> Stream:
        # Not a declared parameter (nothing accepts it), refused all the same.
        if "token" in request.query_params:
            raise TokenInUrl("an API key never goes into a URL: use POST /v1/feed/tickets")
        if ticket is not None:
            owner = await feed_ticket_owner(tickets, ticket)
        else:
            owner = access.api_key(authorization, "the account feed needs an API key")
        await account_feed.touch(owner)
        items = messages(account_feed, owner, last_event_id or after)
        headers = {"Cache-Control": "no-store"}
        if wants_ndjson(accept):
            return NdjsonStream(_ndjson(items), headers=headers)
        return ServerSentEvent(_sse(items), headers=headers)

    @post(
        "/tickets",
        operation_id="createFeedTicket",
        responses=problems(401),
        security=[API_KEY],
        summary="A single-use ticket to open the account feed",
        description="The API key. Pass the ticket as `GET /v1/feed?ticket=...`; it works "
        "once, for about 60 s. Asking for one starts recording the key's feed.",
        status_code=201,
    )
    async def feed_ticket(
        self,
        access: Injected[Access],
        tickets: Injected[TicketStore],
        account_feed: Injected[AccountFeed],
        authorization: Authorization = None,
    ) -> StreamTicket:
        if authorization is None:
            raise Unauthorized("a feed ticket needs the API key")
        owner = access.api_key(authorization, "a feed ticket needs the API key")
        await account_feed.touch(owner)
        ticket, expires = await tickets.issue(Grant("feed", api_key_id=owner))
        return StreamTicket(ticket=ticket, expires_at_ms=expires)
