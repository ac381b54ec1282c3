"""Descriptions on the schemas, from the code: what Litestar leaves out."""

from __future__ import annotations

from typing import Any

from service.http.openapi.struct_classes import classes_of, own_doc, struct_classes


def describe_schemas(doc: dict[str, Any]) -> None:
    """Schema descriptions from the Structs' docstrings (Litestar keeps only the fields'
    ``Meta(description=...)``), and the fields no ``Meta`` can describe: a class's
    ``DESCRIBED_OUTSIDE_META`` (its tag, which is no field, and a field of a Struct type,
    which Litestar would wrap in ``allOf`` and whose text it would copy onto that Struct's
    own schema), else for a tag a sentence naming it."""
    classes = struct_classes()
    for key, schema in doc["components"]["schemas"].items():
        candidates = classes_of(key, classes)
        if "description" not in schema and candidates:
            text = own_doc(candidates[0])
            if text:
                schema["description"] = text
        props = schema.get("properties", {})
        outside: dict[str, str] = getattr(candidates[0], "DESCRIBED_OUTSIDE_META", {})
        for field, text in (outside if candidates else {}).items():
            prop = props[field]
            if "description" in prop or not ("const" in prop or set(prop) == {"$ref"}):
                raise ValueError(f"{key}.{field}: describe it with a field Meta")
            prop["description"] = text
        for field, prop in props.items():
            if "const" not in prop:
                continue
            prop.setdefault(
                "description",
                f"Always `{prop['const']}`: says which kind of object this is "
                f"(the `{field}` tag of a union).",
            )
            # Still required (the server needs the tag), but with its only value as the
            # default, so generated clients fill it in: ``HumanSeat()``, not
            # ``HumanSeat(type_="human")``.
            prop.setdefault("default", prop["const"])
