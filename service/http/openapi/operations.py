"""The pass over each operation: its parameters, and what its handler's declarations imply
that Litestar cannot say (answer headers, a second media type, links)."""

from __future__ import annotations

from typing import Any

from service.http.openapi.links import (
    TICKET_LINKS,
    link_claimed_seat,
    link_created_game,
    link_ticket,
)


def _drop_null(param: dict[str, Any]) -> None:
    """An optional header or query parameter is absent, never null: unwrap ``X | None``."""
    schema = param.get("schema", {})
    options = schema.get("oneOf")
    if isinstance(options, list):
        kept = [o for o in options if o.get("type") != "null"]
        if len(kept) == 1 and len(kept) < len(options):
            rest = {k: v for k, v in schema.items() if k != "oneOf"}
            param["schema"] = {**kept[0], **rest}


def _conditional(responses: dict[str, Any]) -> None:
    """A conditional read's ETag and Vary headers, on its 200 and its declared 304
    (service/http/route_contract.py `conditional`: Litestar's answers have no headers)."""
    etag = {
        "description": "The game's version, quoted: send it back in If-None-Match",
        "schema": {"type": "string", "pattern": '^"[0-9]+"$'},
    }
    vary = {
        "description": "Authorization: each caller sees its own view",
        "schema": {"type": "string"},
    }
    ok = responses.setdefault("200", {})
    ok["headers"] = {**ok.get("headers", {}), "ETag": etag, "Vary": vary}
    responses["304"]["headers"] = {"ETag": etag, "Vary": vary}


def finish_operation(op: dict[str, Any]) -> None:
    """One operation: its parameters, and what its handler's declarations imply that
    Litestar cannot say (answer headers, a second media type, links)."""
    op_id = op.get("operationId", "")
    for param in op.get("parameters", []):
        _drop_null(param)
    responses = op.setdefault("responses", {})
    headers = {p["name"] for p in op.get("parameters", []) if p.get("in") == "header"}
    if "429" in responses:  # declared by every route the rate limit counts
        responses["429"]["headers"] = {
            "Retry-After": {
                "description": "Seconds until the credential may send again",
                "schema": {"type": "integer", "minimum": 1},
            }
        }
    if "Prefer" in headers and "200" in responses:  # an act that may answer its view
        responses["200"]["headers"] = {
            "Preference-Applied": {
                "description": "`return=representation` when the answer carries `view`"
                " (asked for with `Prefer: return=representation`)",
                "schema": {"type": "string", "enum": ["return=representation"]},
            }
        }
    if "304" in responses:
        _conditional(responses)
    if op_id == "createGame":
        link_created_game(responses.get("201", {}))
    if "Accept" in headers and "200" in responses:  # a live feed, SSE or JSON lines
        content = responses["200"].setdefault("content", {})
        content["application/x-ndjson"] = {
            "schema": {
                "type": "string",
                "description": "JSON lines (with `Accept: application/x-ndjson`): one "
                "message per line, each an object with `kind` and `version`",
            }
        }
    if op_id in TICKET_LINKS:
        link_ticket(op_id, responses)
    if op_id == "claimInvite":
        link_claimed_seat(responses.get("201", {}))
