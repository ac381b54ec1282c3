"""What a handler declares of its contract besides its path, parameters and answer type:
the problems it may answer, who may call it, and whether it answers 304.

Each route writes these once, on its handler (``responses=problems(...)``, ``security=...``),
and everything else reads them from there: the OpenAPI document (Litestar renders them;
service/http/openapi/ only completes what no handler can say), and the rate limit, which
counts exactly the routes that declare its 429 (`counted`). tests/contract/
test_route_declarations.py fails when a handler of the contract leaves one out.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import SecurityRequirement

from service.http.problems import CATALOGUE, PROBLEM_MEDIA_TYPE, Problem

# Who may call a route: the alternatives of its ``security`` (one of them is enough). A
# route open to anyone lists `ANYONE`; one where a credential only adds (a seat's view
# instead of a spectator's) lists it last.
API_KEY: SecurityRequirement = {"apiKey": []}
SEAT_TOKEN: SecurityRequirement = {"seatToken": []}
TICKET_SECRET: SecurityRequirement = {"ticketSecret": []}
ANYONE: SecurityRequirement = {}

# Any request may be malformed.
_ALWAYS = (HTTPStatus.BAD_REQUEST,)


def problems(*statuses: int, counted: bool = True) -> dict[int, ResponseSpec]:
    """The problem answers of a route: 400, ``statuses``, and the rate limit's 429 unless
    the route is one the limit does not count (``counted=False``: probes and metrics)."""
    every = [*_ALWAYS, *statuses, *([HTTPStatus.TOO_MANY_REQUESTS] if counted else [])]
    return {status: _problem_answer(status) for status in every}


def conditional() -> dict[int, ResponseSpec]:
    """The 304 of a conditional read (If-None-Match naming the current version); the
    document adds its ETag and Vary headers (service/http/openapi/operations.py)."""
    description = "Not modified: the game is still at the version If-None-Match names"
    return {HTTPStatus.NOT_MODIFIED: ResponseSpec(None, description=description)}


def counted(handler: Any) -> bool:
    """Does the rate limit count this route handler's requests? All but those whose declared
    answers leave out its 429 (``problems(..., counted=False)``); a route that declares no
    answers (the web pages, the docs) is counted."""
    responses = getattr(handler, "responses", None)
    return responses is None or HTTPStatus.TOO_MANY_REQUESTS in responses


def _problem_answer(status: int) -> ResponseSpec:
    codes = [code for code, (answered, _) in CATALOGUE.items() if answered == status]
    if not codes:
        raise ValueError(f"no problem type of the catalogue answers {status}")
    return ResponseSpec(
        Problem,
        generate_examples=False,
        description="Problem: " + ", ".join(codes),
        media_type=PROBLEM_MEDIA_TYPE,
    )
