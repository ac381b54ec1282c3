"""The values a refused field allows, so a typo's problem names them ("fbl": one of 'fbi', ...).

Read from the types themselves (msgspec's type information), so a game or a bot level added
to the registry is listed with no change here: a game kind is the tag of a tagged union of
per-game bodies, a bot level a string ``Literal``.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
import msgspec.inspect as mi

_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")
# msgspec's wording for a value outside a Literal, an enum or the tags of a union.
_REFUSED_VALUE = re.compile(r"^Invalid (?:enum )?value .* - at `(\$[^`]*)`$")


def choices(annotation: Any) -> tuple[str, ...]:
    """The values of a ``Literal``/enum annotation (optional or not); () for any other."""
    try:
        return _values(mi.type_info(annotation))
    except TypeError:  # not a type msgspec knows (a framework's own parameter type)
        return ()


def refused_value_path(message: str) -> str | None:
    """The JSON path (``$.seats[1].level``) of a msgspec error about a value not allowed."""
    found = _REFUSED_VALUE.match(message)
    return found.group(1) if found else None


def choices_at(target: Any, body: bytes, path: str) -> tuple[str, ...]:
    """The values allowed at ``path`` of a ``target`` body (``body`` picks the union members
    by their tags on the way); () when the path does not lead to a closed set."""
    try:
        document = msgspec.json.decode(body)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
        return ()
    steps = [name or int(index) for name, index in _STEP.findall(path.removeprefix("$"))]
    return _walk(mi.type_info(target), document, steps)


def _walk(info: mi.Type, document: Any, steps: list[str | int]) -> tuple[str, ...]:
    if isinstance(info, mi.Metadata):  # Annotated[..., Meta(...)]: the type inside
        return _walk(info.type, document, steps)
    if isinstance(info, mi.UnionType):
        structs = [t for t in info.types if isinstance(t, mi.StructType)]
        tagged = [t for t in structs if t.tag_field is not None]
        if steps and tagged and steps[0] == tagged[0].tag_field and len(steps) == 1:
            return tuple(str(t.tag) for t in tagged)  # the tag itself was refused
        if tagged and isinstance(document, dict):
            chosen = [t for t in tagged if document.get(t.tag_field) == t.tag]
            return _walk(chosen[0], document, steps) if chosen else ()
        others = [t for t in info.types if not isinstance(t, mi.NoneType)]
        return _walk(others[0], document, steps) if len(others) == 1 else _values(info)
    if not steps:
        return _values(info)
    step, rest = steps[0], steps[1:]
    if isinstance(info, mi.StructType) and isinstance(step, str):
        if step == info.tag_field and not rest:
            return ()
        for field in info.fields:
            if field.encode_name == step:
                inner = document.get(step) if isinstance(document, dict) else None
                return _walk(field.type, inner, rest)
        return ()
    if isinstance(info, mi.ListType | mi.VarTupleType) and isinstance(step, int):
        inner = document[step] if isinstance(document, list) and step < len(document) else None
        return _walk(info.item_type, inner, rest)
    if isinstance(info, mi.DictType) and isinstance(step, str):
        inner = document.get(step) if isinstance(document, dict) else None
        return _walk(info.value_type, inner, rest)
    return ()


def _values(info: mi.Type) -> tuple[str, ...]:
    if isinstance(info, mi.Metadata):
        return _values(info.type)
    if isinstance(info, mi.LiteralType):
        return tuple(str(v) for v in info.values)
    if isinstance(info, mi.EnumType):
        return tuple(str(member.value) for member in info.cls)
    if isinstance(info, mi.UnionType):
        return tuple(v for t in info.types for v in _values(t))
    return ()


def listed(values: tuple[str, ...]) -> str:
    """``one of 'fbi', 'feds', 'bonnie_clyde'`` (a phrase to end a problem's detail with)."""
    return "one of " + ", ".join(repr(v) for v in values)
