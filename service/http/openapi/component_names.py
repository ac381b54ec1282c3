"""Readable component names for the types two parts of the domain both define."""

from __future__ import annotations

from typing import Any

from domain import registry


def component_names(doc: dict[str, Any]) -> None:
    """Readable names for types two parts of the domain both define (Litestar falls back to
    module paths, ``fbi_cards_Card``): a game's are its name in CamelCase, then the type
    (``FbiCard``); the match layer's are ``match_`` and the type, whichever module of the
    package holds it (``match_events_GameStarted`` is ``match_GameStarted``)."""
    schemas = doc["components"]["schemas"]
    renames: dict[str, str] = {}
    for key in list(schemas):
        name = key.rsplit("_", 1)[-1]
        for game in registry.names():
            if key.startswith(game + "_"):
                new = "".join(part.title() for part in game.split("_")) + name
                renames[key] = new
                schemas[new] = {**schemas.pop(key), "title": new}  # generators name by title
        if key.startswith("match_"):
            renames[key] = "match_" + name
            schemas[renames[key]] = schemas.pop(key)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.rsplit("/", 1)[1] in renames:
                node["$ref"] = "#/components/schemas/" + renames[ref.rsplit("/", 1)[1]]
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(doc)
