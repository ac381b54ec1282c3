"""Every limit a handler declares on a parameter is in the contract: the server refuses
what breaks it, so a client must be able to read it there (a bound of 0 included, which
Litestar leaves out of an optional parameter's schema)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from litestar.params import HeaderParameter, ParameterKwarg, PathParameter, QueryParameter
from litestar.routes import HTTPRoute

from service.app import create_app
from service.settings import Settings

CONTRACT = Path(__file__).resolve().parents[2] / "openapi" / "v1.json"
KEYWORDS = {
    "ge": "minimum",
    "gt": "exclusiveMinimum",
    "le": "maximum",
    "lt": "exclusiveMaximum",
    "min_length": "minLength",
    "max_length": "maxLength",
    "pattern": "pattern",
}
KINDS: dict[type[ParameterKwarg], str] = {
    QueryParameter: "query",
    HeaderParameter: "header",
    PathParameter: "path",
}


def _declared() -> list[tuple[str, str, str, str, str, Any]]:
    """(path, method, where, wire name, keyword, value) of every parameter limit."""
    app = create_app(Settings(redis_url="redis://unused"))
    found = []
    for route in app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        for handler in route.route_handlers:
            if not handler.include_in_schema:
                continue
            for name, field in handler.parsed_fn_signature.parameters.items():
                kwarg = field.kwarg_definition
                if not isinstance(kwarg, ParameterKwarg):
                    continue  # a body or a dependency: no KINDS entry
                where = KINDS.get(type(kwarg))
                if where is None:
                    continue
                wire = getattr(kwarg, where, None) or kwarg.name or name
                for attribute, keyword in KEYWORDS.items():
                    value = getattr(kwarg, attribute, None)
                    if value is None:
                        continue
                    for method in handler.http_methods:
                        place = (route.path_format, method.lower(), where, wire)
                        found.append((*place, keyword, value))
    return found


def test_every_parameter_limit_is_in_the_contract() -> None:
    paths = json.loads(CONTRACT.read_text())["paths"]
    declared = _declared()
    assert any(d[3] == "after" and d[4] == "minimum" for d in declared), "nothing was collected"
    missing = []
    for path, method, where, wire, keyword, value in declared:
        params = paths[path][method].get("parameters", [])
        schemas = [
            p["schema"] for p in params if p["in"] == where and p["name"].lower() == wire.lower()
        ]
        if not schemas or schemas[0].get(keyword) != value:
            missing.append(f"{method.upper()} {path} {where} {wire}: {keyword} {value}")
    assert not missing, missing
