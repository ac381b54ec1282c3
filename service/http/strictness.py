"""The request rules docs/api-guide.md promises, in one place: a body is JSON (415 otherwise),
every unknown path is a problem, a path names a resource only as sent (an encoded `/` is no
separator), and a client holding the current version gets a 304.

(Unknown fields and wrong types in a body are the strict decoder's job; a 405 carries
`Allow` in `service.play.errors`.)
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.exceptions import HTTPException, NotFoundException, ValidationException
from litestar.handlers import HTTPRouteHandler
from litestar.params import HeaderParameter, QueryParameter
from litestar.routes import HTTPRoute

from service.http.problems import PROBLEM_MEDIA_TYPE, problem
from service.views.versions import etag

JSON_MEDIA_TYPES = ("application/json",)


def is_json(media_type: str) -> bool:
    media_type = media_type.strip().lower()
    return media_type in JSON_MEDIA_TYPES or (
        media_type.startswith("application/") and media_type.endswith("+json")
    )


def _methods(request: Request[Any, Any, Any]) -> str:
    """The methods the matched path supports, as ``Allow`` lists them."""
    template = request.scope.get("path_template", "")
    methods: set[str] = set()
    for route in request.app.routes:
        if isinstance(route, HTTPRoute) and route.path_format == template:
            methods |= set(route.methods)
    return ", ".join(sorted(methods))


# Keyed by the handler's id, holding the handler itself: an id is only unique among live
# objects, and a process that builds apps more than once (the tests do) would otherwise find
# a collected handler's entry under a new handler's id.
_NULL_TAKERS: dict[int, tuple[HTTPRouteHandler, tuple[tuple[str, str], ...]]] = {}


def _null_takers(handler: HTTPRouteHandler) -> tuple[tuple[str, str], ...]:
    """(``query`` or ``header``, wire name) of the handler's optional parameters whose
    type is not a string (an integer, an enum, ...): the lax parameter decoding reads the
    text ``null`` as an absent value for them, which their schema does not allow."""
    key = id(handler)
    known = _NULL_TAKERS.get(key)
    if known is not None and known[0] is handler:
        return known[1]
    found = []
    for name, field in handler.parsed_fn_signature.parameters.items():
        kwarg = field.kwarg_definition
        if not field.is_optional or str in (t.annotation for t in field.inner_types):
            continue
        if isinstance(kwarg, QueryParameter):
            found.append(("query", kwarg.query or name))
        elif isinstance(kwarg, HeaderParameter):
            found.append(("header", (kwarg.header or name).lower()))
    taken = tuple(found)
    _NULL_TAKERS[key] = (handler, taken)
    return taken


def _refuse_null_text(request: Request[Any, Any, Any]) -> None:
    """400 ``invalid-request`` for ``?after=null`` and its kind: an optional integer or
    enum parameter is either absent or a value of its type, never the text ``null``."""
    for kind, name in _null_takers(request.route_handler):
        if kind == "query":
            values = request.query_params.getall(name, [])
        else:
            values = request.headers.getall(name, [])
        if "null" in values:
            raise ValidationException(
                extra=[{"key": name, "message": "`null` is not a value of this parameter"}]
            )


def _refuse_encoded_slash(request: Request[Any, Any, Any]) -> None:
    """404 for a path holding an encoded ``/`` (``%2F``). The server routes the decoded
    path, where it would be a separator: ``/v1/players/x%2Fgames`` would answer x's games.
    No id of this API holds a ``/`` (an external_id never does: service/play/identities.py),
    so such a path names nothing."""
    raw: bytes = request.scope.get("raw_path") or b""
    if b"%2f" in raw.lower():
        raise NotFoundException("no such resource: no id of this API holds a '/' (%2F)")


async def check_request(request: Request[Any, Any, Any]) -> Response[Any] | None:
    """``before_request``: an operation that takes a body takes JSON, said so in
    ``Content-Type`` (415 ``unsupported-media-type`` otherwise, before anything is read);
    an optional integer or enum parameter is never the text ``null``; a path holding an
    encoded ``/`` is 404.

    ``OPTIONS`` answers every method of the path in ``Allow`` (Litestar's own answer lists
    only the methods of the first handler registered for the path).
    """
    _refuse_encoded_slash(request)
    if request.method == "OPTIONS":
        return Response(None, status_code=204, headers={"Allow": _methods(request)})
    _refuse_null_text(request)
    if request.route_handler.parsed_data_field is None:
        return None
    media_type, _ = request.content_type
    if not is_json(media_type):
        raise HTTPException(
            status_code=415,
            detail=f"send the body as application/json, not {media_type or 'no Content-Type'}",
        )
    return None


async def problem_for_not_found(response: Response[Any]) -> Response[Any]:
    """``after_request``: the docs router answers unknown ``/schema/...`` paths with an
    HTML page; every 404 of this API is a problem document instead."""
    if response.status_code == 404 and response.media_type != PROBLEM_MEDIA_TYPE:
        return Response(
            problem("not-found", "no such resource"),
            status_code=404,
            media_type=PROBLEM_MEDIA_TYPE,
        )
    return response


def not_modified_response(version: int) -> Response[Any]:
    return Response(
        None,
        status_code=304,
        headers={"ETag": etag(version), "Vary": "Authorization"},
    )
