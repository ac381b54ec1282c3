"""Every schema and property of the committed contract says what it means.

Descriptions come from the types themselves (struct docstrings, field ``Meta``) and, for
the service's wire types, from `service.views.descriptions`. The check covers the schemas
of the modules listed in `DESCRIBED`: the service, the match layer and each game whose
types have been described."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from domain import registry
from service.http.openapi import _struct_classes
from service.views.schemas import RulesDocument, rules_data

CONTRACT = json.loads((Path(__file__).resolve().parents[2] / "openapi" / "v1.json").read_text())
SCHEMAS: dict[str, Any] = CONTRACT["components"]["schemas"]
DESCRIBED = (
    "service.",
    "domain.match",
    "domain.engine",
    "domain.verify",
    "domain.fbi.",
    "domain.bonnie_clyde.",
    "domain.feds.",
)


def _modules(title: str) -> set[str]:
    """The modules defining a schema's type (several games may share a class name)."""
    name, package = title, ""
    for prefix, game in (("Fbi", "fbi"), ("Feds", "feds"), ("BonnieClyde", "bonnie_clyde")):
        if name.startswith(prefix) and name not in _struct_classes():
            name, package = name.removeprefix(prefix), f"domain.{game}."
    owners = {_owner(cls) for cls in _struct_classes().get(name, [])}
    return {m for m in owners if m.startswith(package)}


def _owner(cls: type) -> str:
    """The module of the type's deepest project base: a tagged copy made in the service
    (rules data, creation bodies) belongs to the module that defines its fields."""
    project = [k for k in cls.__mro__ if k.__module__.startswith(("domain", "service"))]
    return project[-1].__module__


def _in_scope(key: str, schema: dict[str, Any]) -> bool:
    if key == "Problem":
        return True
    modules = _modules(schema.get("title", key))
    return any(m.startswith(DESCRIBED) for m in modules)


def _missing(key: str, schema: dict[str, Any]) -> list[str]:
    out = [] if schema.get("description") else [f"{key} (the schema)"]
    out += [
        f"{key}.{name}"
        for name, prop in schema.get("properties", {}).items()
        if not prop.get("description")
    ]
    return out


def test_the_scope_covers_the_service_and_match_schemas() -> None:
    covered = [k for k, s in SCHEMAS.items() if _in_scope(k, s)]
    for key in ("GameView", "AwaitingAction", "Outcome", "SealCommitted", "CreateFbiGame"):
        assert key in covered, key
    assert len(covered) >= 40


@pytest.mark.parametrize("key", sorted(k for k, s in SCHEMAS.items() if _in_scope(k, s)))
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
