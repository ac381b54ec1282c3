"""v1 only grows: the live contract keeps every promise of the released one
(`openapi/v1-released.json`, replaced only by `make release-openapi`), and the checker
itself catches each kind of broken promise on small made-up documents."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.contract.v1_growth import breaking_changes

_STRING = {"type": "string"}
OPENAPI = Path(__file__).resolve().parents[2] / "openapi"


def test_the_live_contract_keeps_every_promise_of_the_released_one() -> None:
    released = json.loads((OPENAPI / "v1-released.json").read_text())
    live = json.loads((OPENAPI / "v1.json").read_text())
    assert breaking_changes(released, live) == []
    assert released["paths"], "the released copy is a real contract"


def _doc() -> dict[str, Any]:
    """A small contract: one read, one write, a schema with a nullable field and an enum."""
    return {
        "paths": {
            "/things/{id}": {
                "get": {
                    "parameters": [
                        {"in": "path", "name": "id", "required": True, "schema": _STRING},
                        {"in": "query", "name": "full", "schema": {"type": "boolean"}},
                    ],
                    "responses": {
                        "200": {
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Thing"}
                                }
                            }
                        },
                        "404": {"description": "no such thing"},
                    },
                },
                "post": {
                    "requestBody": {
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/New"}}
                        }
                    },
                    "responses": {"201": {"description": "made"}},
                },
            }
        },
        "webhooks": {
            "thing.made": {
                "post": {
                    "requestBody": {
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}
                        }
                    }
                }
            }
        },
        "components": {
            "schemas": {
                "Colour": {"type": "string", "enum": ["red", "blue"]},
                "Thing": {
                    "type": "object",
                    "required": ["id", "colour", "note"],
                    "properties": {
                        "id": {"type": "string"},
                        "colour": {"$ref": "#/components/schemas/Colour"},
                        "note": {"type": ["string", "null"]},
                        "tags": {"type": "array", "items": {"type": "string"}},
                        "owner": {
                            "oneOf": [{"$ref": "#/components/schemas/Person"}, {"type": "null"}]
                        },
                    },
                },
                "Person": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {"name": {"type": "string"}},
                },
                "New": {
                    "type": "object",
                    "required": ["colour"],
                    "properties": {
                        "colour": {"$ref": "#/components/schemas/Colour"},
                        "label": {"type": "string", "maxLength": 40},
                        "count": {"type": "number", "minimum": 0},
                    },
                },
            }
        },
    }


def _changed(edit: Any) -> list[str]:
    released = _doc()
    live = copy.deepcopy(released)
    edit(live)
    return breaking_changes(released, live)


def _schemas(doc: dict[str, Any]) -> dict[str, Any]:
    schemas: dict[str, Any] = doc["components"]["schemas"]
    return schemas


def test_an_unchanged_contract_breaks_nothing() -> None:
    assert _changed(lambda doc: None) == []


def test_growing_breaks_nothing() -> None:
    def grow(doc: dict[str, Any]) -> None:
        doc["paths"]["/others"] = {"get": {"responses": {"200": {"description": "ok"}}}}
        doc["paths"]["/things/{id}"]["delete"] = {"responses": {"204": {"description": "gone"}}}
        get = doc["paths"]["/things/{id}"]["get"]
        get["parameters"].append({"in": "query", "name": "page", "schema": {"type": "integer"}})
        get["responses"]["409"] = {"description": "busy"}
        schemas = _schemas(doc)
        schemas["Colour"]["enum"].append("green")
        schemas["Thing"]["properties"]["size"] = {"type": "integer"}
        schemas["Thing"]["required"].append("size")  # a new field always present: fine
        schemas["New"]["properties"]["size"] = {"type": "integer"}
        schemas["New"]["properties"]["label"]["maxLength"] = 80  # looser
        schemas["New"]["properties"]["count"]["type"] = ["number", "null"]  # wider
        schemas["Person"]["properties"]["age"] = {"type": "integer"}

    assert _changed(grow) == []


def _drop_path(doc: dict[str, Any]) -> None:
    del doc["paths"]["/things/{id}"]


def _drop_operation(doc: dict[str, Any]) -> None:
    del doc["paths"]["/things/{id}"]["post"]


def _drop_webhook(doc: dict[str, Any]) -> None:
    del doc["webhooks"]["thing.made"]


def _drop_response_field(doc: dict[str, Any]) -> None:
    del _schemas(doc)["Thing"]["properties"]["tags"]


def _optional_response_field(doc: dict[str, Any]) -> None:
    _schemas(doc)["Thing"]["required"].remove("note")


def _drop_nested_field(doc: dict[str, Any]) -> None:
    del _schemas(doc)["Person"]["properties"]["name"]


def _drop_enum_value(doc: dict[str, Any]) -> None:
    _schemas(doc)["Colour"]["enum"].remove("blue")


def _narrow_type(doc: dict[str, Any]) -> None:
    _schemas(doc)["Thing"]["properties"]["note"]["type"] = "string"


def _change_type(doc: dict[str, Any]) -> None:
    _schemas(doc)["Thing"]["properties"]["tags"]["items"] = {"type": "integer"}


def _drop_variant(doc: dict[str, Any]) -> None:
    _schemas(doc)["Thing"]["properties"]["owner"] = {"type": "null"}


def _number_to_integer(doc: dict[str, Any]) -> None:
    _schemas(doc)["New"]["properties"]["count"]["type"] = "integer"


def _tighter_length(doc: dict[str, Any]) -> None:
    _schemas(doc)["New"]["properties"]["label"]["maxLength"] = 20


def _required_request_field(doc: dict[str, Any]) -> None:
    _schemas(doc)["New"]["required"].append("label")


def _new_required_request_field(doc: dict[str, Any]) -> None:
    new = _schemas(doc)["New"]
    new["properties"]["size"] = {"type": "integer"}
    new["required"].append("size")


def _required_parameter(doc: dict[str, Any]) -> None:
    doc["paths"]["/things/{id}"]["get"]["parameters"][1]["required"] = True


def _new_required_parameter(doc: dict[str, Any]) -> None:
    doc["paths"]["/things/{id}"]["get"]["parameters"].append(
        {"in": "header", "name": "X-Tenant", "required": True, "schema": {"type": "string"}}
    )


def _drop_parameter(doc: dict[str, Any]) -> None:
    doc["paths"]["/things/{id}"]["get"]["parameters"].pop(1)


def _drop_status(doc: dict[str, Any]) -> None:
    del doc["paths"]["/things/{id}"]["get"]["responses"]["404"]


def _body_required(doc: dict[str, Any]) -> None:
    doc["paths"]["/things/{id}"]["post"]["requestBody"]["required"] = True


def _drop_webhook_field(doc: dict[str, Any]) -> None:
    # Thing is shared: its field disappears from the webhook's payload too (and the GET's).
    del _schemas(doc)["Thing"]["properties"]["id"]


BREAKS = [
    (_drop_path, "paths /things/{id}: disappears"),
    (_drop_operation, "POST /things/{id}: the operation disappears"),
    (_drop_webhook, "webhooks thing.made: disappears"),
    (_drop_response_field, "GET /things/{id} 200.tags: the field disappears"),
    (_optional_response_field, "GET /things/{id} 200.note: the field is no longer always present"),
    (_drop_nested_field, "GET /things/{id} 200.owner<Person>.name: the field disappears"),
    (_drop_enum_value, "GET /things/{id} 200.colour: the enum value 'blue' disappears"),
    (_narrow_type, "GET /things/{id} 200.note: the type narrows (no longer null)"),
    (_change_type, "GET /things/{id} 200.tags[]: the type narrows (no longer string)"),
    (_drop_variant, "GET /things/{id} 200.owner: the variant Person disappears"),
    (_number_to_integer, "POST /things/{id} body.count: the type narrows (no longer number)"),
    (_tighter_length, "POST /things/{id} body.label: maxLength tightens to 20"),
    (_required_request_field, "POST /things/{id} body.label: the request gains a required field"),
    (
        _new_required_request_field,
        "POST /things/{id} body.size: the request gains a required field",
    ),
    (_required_parameter, "GET /things/{id} query parameter full: becomes required"),
    (
        _new_required_parameter,
        "GET /things/{id} header parameter X-Tenant: a new required parameter",
    ),
    (_drop_parameter, "GET /things/{id} query parameter full: disappears"),
    (_drop_status, "GET /things/{id}: the response 404 disappears"),
    (_body_required, "POST /things/{id}: the request body becomes required"),
    (_drop_webhook_field, "POST thing.made payload.id: the field disappears"),
]


@pytest.mark.parametrize(("edit", "expected"), BREAKS, ids=[b[0].__name__ for b in BREAKS])
def test_each_broken_promise_is_named(edit: Any, expected: str) -> None:
    assert expected in _changed(edit)
