"""The edge's side of the play answers (`service.seats.answers`): the process's `Answers`
for the hot routes, and the act headers read as the answers take them."""

from __future__ import annotations

from typing import Any

from litestar import Request

from service.seats.answers import Answers


def answers_of(request: Request[Any, Any, Any]) -> Answers:
    """The process's `Answers`, for the hot routes (the view and the acts), from the app's
    state where the lifespan put it: Litestar's dependency injection costs those routes more
    per request than the rest of its work on them (docs/design-move-path.md)."""
    answers: Answers = request.app.state.answers
    return answers


def wants_representation(prefer: str | None) -> bool:
    """Whether a Prefer header asks for ``return=representation`` (RFC 7240 §4.2)."""
    if prefer is None:
        return False
    for preference in prefer.split(","):
        name, _, value = preference.split(";", 1)[0].partition("=")
        if name.strip().lower() == "return" and value.strip().strip('"').lower() == (
            "representation"
        ):
            return True
    return False


def expected_version(if_match: str | None) -> int | None:
    """The version of an If-Match header (an integer, quoted or not)."""
    return None if if_match is None else int(if_match.strip('"'))
