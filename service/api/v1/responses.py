"""The answers of the hot routes (the view and the acts), sent without Litestar's `Response`.

A handler returning `Response` has Litestar build one, then run ``to_asgi_response`` (header
dicts merged, the media type resolved, a serializer made from the app's type encoders, the
body encoded with a one-off encoder), then an `ASGIResponse` with its header map. Measured
side by side (docs/design-move-path.md), that is about as much CPU as the rest of Litestar's
work on the request. `json_answer` encodes the body with one encoder made at import and
sends the two ASGI messages itself; `declared` names the route's 200 answer for the OpenAPI
document (a handler returning `ASGIResponse` has no answer type for it to read), so the
contract reads as with `Response`.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

import msgspec
from litestar.openapi.datastructures import ResponseSpec
from litestar.response.base import ASGIResponse
from litestar.types import HTTPResponseBodyEvent, HTTPResponseStartEvent, Receive, Scope, Send

from service.views.versions import etag

_ENCODER = msgspec.json.Encoder()  # the answers hold builtins and Structs only
_JSON = (b"content-type", b"application/json")


class _Answer(ASGIResponse):
    """A 200 with a JSON body, as `ASGIResponse` sends it, without the header map it builds
    first (about as much work as the rest of the answer): the headers are encoded once."""

    __slots__ = ("_head",)

    def __init__(self, body: bytes, headers: dict[str, str]) -> None:  # no super(): above
        self.status_code = HTTPStatus.OK
        self.body = body
        self._head = [
            *(
                (name.lower().encode("latin-1"), value.encode("latin-1"))
                for name, value in headers.items()
            ),
            _JSON,
            (b"content-length", str(len(body)).encode()),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        start: HTTPResponseStartEvent = {
            "type": "http.response.start",
            "status": HTTPStatus.OK,
            "headers": self._head,
        }
        await send(start)
        end: HTTPResponseBodyEvent = {
            "type": "http.response.body",
            "body": self.body,
            "more_body": False,
        }
        await send(end)


def json_answer(value: Any, headers: dict[str, str]) -> ASGIResponse:
    """A 200 of ``value`` as JSON, with ``headers``."""
    return _Answer(_ENCODER.encode(value), headers)


def unchanged(version: int) -> ASGIResponse:
    """A 304: the client's copy (ETag ``version``) is current."""
    cached = {"ETag": etag(version), "Vary": "Authorization"}
    return ASGIResponse(status_code=HTTPStatus.NOT_MODIFIED, headers=cached)


def declared(answer: type) -> dict[int, ResponseSpec]:
    """The ``responses`` of a route answering ``answer`` with `json_answer`."""
    ok = ResponseSpec(answer, generate_examples=False, description=HTTPStatus.OK.description)
    return {HTTPStatus.OK: ok}
