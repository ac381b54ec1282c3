"""Every schema and property of the committed contract says what it means.

Descriptions come from the types themselves: struct docstrings, field ``Meta``, and for
what no ``Meta`` can describe (a tag, a Struct-typed field) the class's
``DESCRIBED_OUTSIDE_META``. The check covers every schema of the document: a type made at
import time (a game's creation body, its ticket) is no exception."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from domain import registry
from service.http.openapi.schema_descriptions import describe_schemas
from service.views.schemas import RulesDocument, rules_data

CONTRACT = json.loads((Path(__file__).resolve().parents[2] / "openapi" / "v1.json").read_text())
SCHEMAS: dict[str, Any] = CONTRACT["components"]["schemas"]


def _missing(key: str, schema: dict[str, Any]) -> list[str]:
    out = [] if schema.get("description") else [f"{key} (the schema)"]
    out += [
        f"{key}.{name}"
        for name, prop in schema.get("properties", {}).items()
        if not prop.get("description")
    ]
    return out


@pytest.mark.parametrize("key", sorted(SCHEMAS))
def test_every_schema_and_property_is_described(key: str) -> None:
    assert _missing(key, SCHEMAS[key]) == []


def test_the_shared_concepts_are_explained_where_they_are_defined() -> None:
    view = SCHEMAS["GameView"]["properties"]
    assert "number of events" in view["version"]["description"]
    assert "move, commit or reveal" in view["awaiting"]["description"]
    assert "post one as is" in view["legal"]["description"]
    assert "tied seats share a place" in SCHEMAS["Outcome"]["properties"]["places"]["description"]
    step = SCHEMAS["AwaitingAction"]["properties"]["step"]["description"]
    for grammar in ("t{turn}.release.{seat}", "r{round}.agents", "t{turn}.{n}.{phase}"):
        assert grammar in step


def _human_seat_with(prop: dict[str, Any]) -> dict[str, Any]:
    return {"components": {"schemas": {"HumanSeat": {"properties": {"type": prop}}}}}


def test_a_description_outside_meta_goes_only_where_no_meta_can_give_one() -> None:
    doc = _human_seat_with({"const": "human", "type": "string"})
    describe_schemas(doc)
    tag = doc["components"]["schemas"]["HumanSeat"]["properties"]["type"]
    assert tag == {"const": "human", "type": "string", "description": "human.", "default": "human"}
    with pytest.raises(ValueError, match=r"HumanSeat\.type: describe it with a field Meta"):
        describe_schemas(_human_seat_with({"type": "string"}))


COMMON_RULES_FIELDS = {"name", "title", "summary", "min_seats", "max_seats", "options", "commands"}


@pytest.mark.parametrize("game", registry.games(), ids=registry.names())
def test_every_rules_document_has_one_shape_in_plain_text(game: Any) -> None:
    document = RulesDocument(
        game=game.name,
        title=game.title,
        min_seats=game.min_seats,
        max_seats=game.max_seats,
        bot_levels=["random", "greedy", "expert"],
        rules=rules_data(game),
        house_rules=list(game.house_rules()),
    )
    data = msgspec.to_builtins(document)
    assert set(data["rules"]) >= COMMON_RULES_FIELDS, game.name
    assert data["rules"]["name"] == game.name
    for command in data["rules"]["commands"]:
        assert set(command) == {"type", "description"}
        assert command["description"], command
    text = msgspec.json.encode(data).decode()
    for markup in ("``", ":class:", ":func:", ".. "):
        assert markup not in text, (game.name, markup)
