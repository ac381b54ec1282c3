"""The hot-route layer's table is read from the handlers (service/api/v1/hot_routes.py): a
rule written on a handler (a path parameter's pattern, a header's pattern or length, the
body's type, which headers the entry takes) holds on the layer's path too, and a rule the
layer cannot check as Litestar would stops the start-up."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Annotated, Any

import msgspec
import pytest
from litestar import Litestar, Request, get, post
from litestar.params import Body, HeaderParameter, PathParameter
from litestar.response.base import ASGIResponse
from litestar.routes import BaseRoute

from service.api.v1.hot_routes import HotRoutes, hot
from service.api.v1.responses import json_answer
from service.app import create_app
from service.settings import Settings

Code = Annotated[str, PathParameter(pattern="^[a-z]{3}$")]
Token = Annotated[str | None, HeaderParameter(name="Token", pattern="^t[0-9]$", required=False)]
Note = Annotated[str | None, HeaderParameter(name="Note", max_length=4, required=False)]
Later = Annotated[str | None, HeaderParameter(name="Later", required=False)]
Bounded = Annotated[int | None, HeaderParameter(name="Count", ge=1, required=False)]


class Thing(msgspec.Struct, forbid_unknown_fields=True):
    size: int


async def entry(  # the parameters the hot route takes (not Later)
    answers: Any,
    code: str,
    data: Thing,
    body: bytes,
    token: str | None = None,
    note: str | None = None,
) -> ASGIResponse:
    return json_answer({"answers": answers, "code": code, "size": data.size, "token": token}, {})


@post("/things/{code:str}", opt=hot(entry), status_code=200)
async def post_thing(
    request: Request[Any, Any, Any],
    code: Code,
    data: Annotated[Thing, Body()],
    token: Token = None,
    note: Note = None,
    later: Later = None,
) -> ASGIResponse:
    raise AssertionError("not called: the layer's stand-in for Litestar answers")


APP = Litestar([post_thing])
APP.state.answers = "the answers"


def _call(
    routes: Sequence[BaseRoute], path: str, headers: list[tuple[bytes, bytes]], body: bytes
) -> tuple[int, list[Any], bool]:
    """One POST through a layer over ``routes``: (requests it served, what it sent, whether
    it handed the request to Litestar's stand-in)."""
    sent: list[Any] = []
    handed: list[Any] = []

    async def litestar(scope: Any, receive: Any, send: Any) -> None:
        handed.append(scope)

    async def receive() -> Any:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": path,
        "query_string": b"",
        "headers": [(b"content-type", b"application/json"), *headers],
        "litestar_app": APP,
    }
    layer = HotRoutes(litestar, 1024, routes=routes)
    # A hand-built scope, not a whole HTTPScope (no route handler, no session).
    asyncio.run(layer(scope, receive, send))  # type: ignore[arg-type]
    return layer.served, sent, bool(handed)


def test_a_request_the_handler_accepts_is_served_with_its_parameters() -> None:
    served, sent, handed = _call(APP.routes, "/things/abc", [(b"token", b"t1")], b'{"size": 3}')
    assert (served, handed) == (1, False)
    answer = msgspec.json.decode(sent[1]["body"])
    assert answer == {"answers": "the answers", "code": "abc", "size": 3, "token": "t1"}


@pytest.mark.parametrize(
    ("name", "path", "headers", "body"),
    [
        ("a path parameter off its pattern", "/things/abcd", [], b'{"size": 3}'),
        ("a header off its pattern", "/things/abc", [(b"token", b"x1")], b'{"size": 3}'),
        ("a header past its length", "/things/abc", [(b"note", b"12345")], b'{"size": 3}'),
        ("a header the entry does not take", "/things/abc", [(b"later", b"x")], b'{"size": 3}'),
        ("a declared header twice", "/things/abc", [(b"note", b"a"), (b"note", b"b")], b"{}"),
        ("a body off the handler's type", "/things/abc", [], b'{"size": 3, "colour": 1}'),
    ],
)
def test_what_the_handler_refuses_goes_to_litestar(
    name: str, path: str, headers: list[tuple[bytes, bytes]], body: bytes
) -> None:
    served, sent, handed = _call(APP.routes, path, headers, body)
    assert (served, sent, handed) == (0, [], True), name


def _routes_of(*handlers: Any) -> list[BaseRoute]:
    return list(Litestar(list(handlers)).routes)


async def _view(answers: Any, code: str) -> ASGIResponse:
    return json_answer(code, {})


def test_a_rule_the_layer_cannot_check_stops_the_start_up() -> None:
    @get("/things/{code:str}", opt=hot(_view))
    async def counted_view(code: Code, count: Bounded = None) -> ASGIResponse:
        raise AssertionError

    with pytest.raises(ValueError, match="count has limits"):
        _call(_routes_of(counted_view), "/things/abc", [], b"")


def test_an_entry_that_does_not_take_a_path_parameter_stops_the_start_up() -> None:
    async def blind(answers: Any) -> ASGIResponse:
        return json_answer(None, {})

    @get("/things/{code:str}", opt=hot(blind))
    async def view(code: Code) -> ASGIResponse:
        raise AssertionError

    with pytest.raises(ValueError, match="every path parameter"):
        _call(_routes_of(view), "/things/abc", [], b"")


def test_a_literal_path_of_a_hot_routes_shape_stops_the_start_up() -> None:
    @get("/things/{code:str}", opt=hot(_view))
    async def view(code: Code) -> ASGIResponse:
        raise AssertionError

    @get("/things/all")
    async def every_thing() -> str:
        return "all"

    with pytest.raises(ValueError, match="/things/all"):
        _call(_routes_of(view, every_thing), "/things/abc", [], b"")


def test_the_apps_hot_routes_are_the_view_and_the_three_acts() -> None:
    app = create_app(Settings(redis_url="redis://unused"))
    layer = HotRoutes(app.asgi_handler, 1024, routes=app.routes)
    routes = {
        (method, route.template)
        for _, by_method in layer._routes.values()
        for method, route in by_method.items()
    }
    assert routes == {
        ("GET", "/v1/games/{game_id}"),
        ("POST", "/v1/games/{game_id}/moves"),
        ("POST", "/v1/games/{game_id}/commitments"),
        ("POST", "/v1/games/{game_id}/reveals"),
    }
