"""Descriptions on the schemas and their fields, from the code."""

from __future__ import annotations

from typing import Any

from service.http.openapi.struct_classes import classes_of, own_doc, struct_classes


def describe_schemas(doc: dict[str, Any]) -> None:
    """Schema descriptions from the Structs' docstrings (Litestar keeps only the fields'
    ``Meta(description=...)``), and one for every tag field (a constant)."""
    from service.views.descriptions import DESCRIPTIONS

    classes = struct_classes()
    for key, schema in doc["components"]["schemas"].items():
        table = DESCRIPTIONS.get(schema.get("title", key), {})
        if "description" not in schema and "" in table:
            schema["description"] = table[""]
        for field, prop in schema.get("properties", {}).items():
            if "description" not in prop and field in table:
                prop["description"] = table[field]
        candidates = classes_of(key, classes)
        if "description" not in schema and candidates:
            text = own_doc(candidates[0])
            if text:
                schema["description"] = text
        for field, prop in schema.get("properties", {}).items():
            if "const" not in prop:
                continue
            if "description" not in prop:
                prop["description"] = (
                    f"Always `{prop['const']}`: says which kind of object this is "
                    f"(the `{field}` tag of a union)."
                )
            # Still required (the server needs the tag), but with its only value as the
            # default, so generated clients fill it in: ``HumanSeat()``, not
            # ``HumanSeat(type_="human")``.
            prop.setdefault("default", prop["const"])
