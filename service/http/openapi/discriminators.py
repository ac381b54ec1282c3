"""Discriminators on the tagged unions: the property every member holds as its own constant."""

from __future__ import annotations

from typing import Any


def _tag_of(schema: dict[str, Any], field: str) -> str | None:
    prop = schema.get("properties", {}).get(field)
    if not isinstance(prop, dict):
        return None
    if "const" in prop:
        return str(prop["const"])
    enum = prop.get("enum")
    if isinstance(enum, list) and len(enum) == 1:
        return str(enum[0])
    return None


def _tag_fields(members: list[dict[str, Any]]) -> list[str]:
    """Properties every member has as a single constant (tagged-union candidates)."""
    if not members:
        return []
    common = set(members[0].get("properties", {}))
    for member in members[1:]:
        common &= set(member.get("properties", {}))
    preferred = ["type", "game", "kind", "rules_of"]
    return sorted(common, key=lambda f: (preferred.index(f) if f in preferred else 99, f))


def add_discriminators(node: Any, components: dict[str, Any]) -> None:
    if isinstance(node, dict):
        options = node.get("oneOf")
        if isinstance(options, list) and options and "discriminator" not in node:
            refs = [o.get("$ref") for o in options if isinstance(o, dict)]
            if all(isinstance(r, str) for r in refs) and len(refs) == len(options):
                names = [str(r).rsplit("/", 1)[1] for r in refs]
                for field in _tag_fields([components.get(n, {}) for n in names]):
                    tags = [_tag_of(components.get(n, {}), field) for n in names]
                    if all(tags) and len(set(tags)) == len(tags):
                        node["discriminator"] = {
                            "propertyName": field,
                            "mapping": {str(t): str(r) for t, r in zip(tags, refs, strict=True)},
                        }
                        break
        for value in node.values():
            add_discriminators(value, components)
    elif isinstance(node, list):
        for value in node:
            add_discriminators(value, components)
