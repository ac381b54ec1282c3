"""Request bodies' optional defaults in words (for openapi-typescript)."""

from __future__ import annotations

import json
from typing import Any


def _refs(node: Any) -> set[str]:
    """The component names ``node`` refers to."""
    if isinstance(node, dict):
        out = {node["$ref"].rsplit("/", 1)[-1]} if isinstance(node.get("$ref"), str) else set()
        for value in node.values():
            out |= _refs(value)
        return out
    if isinstance(node, list):
        return set().union(*(_refs(item) for item in node)) if node else set()
    return set()


def request_defaults_in_words(doc: dict[str, Any]) -> None:
    """An optional property of a request body says its default in words, not ``default``.

    openapi-typescript (default flags) makes every property with a ``default`` required, so
    a body's ``private`` or an option would become mandatory in TypeScript. Required
    properties keep theirs: a tag's ``default`` (its only value) lets openapi-python-client
    fill it in."""
    schemas = doc["components"]["schemas"]
    todo = set().union(
        *(
            _refs(op.get("requestBody", {}))
            for item in doc.get("paths", {}).values()
            for op in item.values()
            if isinstance(op, dict)
        )
    )
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen or name not in schemas:
            continue
        seen.add(name)
        schema = schemas[name]
        todo |= _refs(schema)
        required = set(schema.get("required", []))
        for field, prop in schema.get("properties", {}).items():
            if field in required or "default" not in prop:
                continue
            value = json.dumps(prop.pop("default"))
            text = prop.get("description", "").rstrip()
            prop["description"] = f"{text} Default: `{value}`.".lstrip()
