"""A live feed as JSON lines: a `Stream` served as ``application/x-ndjson``.

The feeds' handlers declare ``text/event-stream`` (their default, for the contract), and
Litestar's `Stream.to_asgi_response` lets the handler's media type win over the response's
own, so a plain ``Stream(..., media_type="application/x-ndjson")`` went out labelled as
Server-Sent Events. Here the response's own type wins.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from litestar import Request
from litestar.response import Stream
from litestar.response.base import ASGIResponse

NDJSON = "application/x-ndjson"


class NdjsonStream(Stream):
    def __init__(self, lines: AsyncIterator[bytes], headers: dict[str, str]) -> None:
        super().__init__(lines, media_type=NDJSON, headers=headers)

    def to_asgi_response(
        self, app: Any, request: Request[Any, Any, Any], **kwargs: Any
    ) -> ASGIResponse:
        kwargs["media_type"] = self.media_type  # not the handler's text/event-stream
        return super().to_asgi_response(app, request, **kwargs)


def wants_ndjson(accept: str | None) -> bool:
    return accept is not None and NDJSON in accept.lower()
