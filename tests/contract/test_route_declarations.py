"""Every route of the contract declares its problems and its security on its handler
(service/http/route_contract.py), and what reads those declarations reads them there: the
document's problem answers and the rate limit's exemptions."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from http import HTTPStatus
from typing import Any

import pytest
from litestar import Litestar
from litestar.handlers import HTTPRouteHandler
from litestar.testing import TestClient

from service.app import create_app
from service.http.problems import PROBLEM_MEDIA_TYPE, Problem
from service.http.route_contract import counted, problems
from service.settings import Settings


def _handlers(app: Litestar) -> Iterator[tuple[str, HTTPRouteHandler]]:
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            if isinstance(handler, HTTPRouteHandler) and handler.resolve_include_in_schema():
                yield route.path, handler


APP = create_app(Settings(redis_url="redis://unused"))
HANDLERS = sorted(_handlers(APP), key=lambda item: str(item[1].operation_id))


def test_the_contract_has_its_routes() -> None:
    assert len(HANDLERS) >= 36


@pytest.mark.parametrize(
    ("path", "handler"), HANDLERS, ids=[str(h.operation_id) for _, h in HANDLERS]
)
def test_every_route_of_the_contract_declares_its_problems_and_security(
    path: str, handler: HTTPRouteHandler
) -> None:
    name = f"{handler.operation_id} ({path})"
    assert handler.operation_id, f"{path}: no operation_id"
    # Declared on the handler itself, not inherited from its controller: one place to read.
    assert handler.security, f"{name}: declare security=[...] (route_contract.py)"
    responses = handler.responses or {}
    declared = {
        status
        for status, spec in responses.items()
        if spec.data_container is Problem and spec.media_type == PROBLEM_MEDIA_TYPE
    }
    assert HTTPStatus.BAD_REQUEST in declared, f"{name}: declare responses=problems(...)"


def test_a_problem_status_no_problem_type_answers_is_refused() -> None:
    with pytest.raises(ValueError, match="418"):
        problems(418)


def test_the_rate_limit_counts_the_routes_that_declare_its_429() -> None:
    uncounted = sorted(path for path, handler in _handlers(APP) if not counted(handler))
    assert uncounted == ["/healthz", "/readyz"]


def test_the_routes_that_declare_no_429_are_never_refused(settings: Settings) -> None:
    """An address over its budget is refused on the counted routes (the lobby, a web page)
    and still answered on the probes and the metrics, whose handlers declare no 429."""
    limited = replace(settings, rate_limit_per_minute=2, rate_limit_burst=2, metrics_port=0)
    with TestClient(app=create_app(limited)) as client:
        answers: list[Any] = [client.get("/v1/lobby").status_code for _ in range(2)]
        assert answers == [200, 200]
        assert client.get("/v1/lobby").status_code == HTTPStatus.TOO_MANY_REQUESTS
        assert client.get("/web/").status_code == HTTPStatus.TOO_MANY_REQUESTS
        for path in ("/healthz", "/readyz", "/metrics"):
            assert client.get(path).status_code == HTTPStatus.OK, path
