"""The limits of optional strings, which Litestar's document leaves out."""

from __future__ import annotations

from typing import Any

import msgspec

from service.http.openapi.struct_classes import classes_of, struct_classes

# The limits of a string that msgspec enforces, as JSON Schema names them.
_STRING_LIMITS = {"min_length": "minLength", "max_length": "maxLength", "pattern": "pattern"}


def optional_string_limits(doc: dict[str, Any]) -> None:
    """The limits of an optional string field (``Annotated[str, Meta(max_length=40)] |
    None``): msgspec enforces them, Litestar's document leaves them out of the ``oneOf``'s
    string member. Every limit the server enforces is in the contract."""
    classes = struct_classes()
    for key, schema in doc["components"]["schemas"].items():
        candidates = classes_of(key, classes)
        if not candidates:
            continue
        info = msgspec.inspect.type_info(candidates[0])
        for field in getattr(info, "fields", ()):
            kind = field.type
            if isinstance(kind, msgspec.inspect.Metadata):  # a description around it
                kind = kind.type
            options = [  # a member may carry the description too: its limits are inside
                t.type if isinstance(t, msgspec.inspect.Metadata) else t
                for t in getattr(kind, "types", ())
            ]
            strings = [t for t in options if isinstance(t, msgspec.inspect.StrType)]
            prop = schema.get("properties", {}).get(field.encode_name)
            if len(strings) != 1 or prop is None:
                continue
            limits = {
                json_name: getattr(strings[0], name)
                for name, json_name in _STRING_LIMITS.items()
                if getattr(strings[0], name) is not None
            }
            for member in prop.get("oneOf", []):
                if member.get("type") == "string":
                    member.update(limits)
