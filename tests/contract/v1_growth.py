"""What a change of the v1 contract takes away from a client written against a released one.

`breaking_changes(released, live)` compares two OpenAPI documents and lists, in words, every
promise of ``released`` that ``live`` no longer keeps:

- a path, an operation (a method of a path) or a webhook disappears;
- a parameter disappears, becomes required, or a new required parameter appears;
- a request body becomes required, or a request schema gains a required field, loses a field,
  or narrows (below);
- a response status disappears; a response field disappears or is no longer always present;
- an enum value disappears (requests and responses alike);
- a type narrows: a schema allows fewer JSON types than it did (``["string", "null"]`` to
  ``"string"``), a variant of a ``oneOf``/``anyOf`` disappears, or (in a request) a bound
  tightens (``maxLength``, ``maximum``, ``maxItems`` down; ``minLength``, ``minimum``,
  ``minItems`` up).

Adding is always allowed: new paths, operations, optional parameters and fields, enum
values, response statuses. Pure: two dicts in, a list of sentences out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Direction = Literal["request", "response"]
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
_UPPER = ("maxLength", "maximum", "maxItems", "exclusiveMaximum")
_LOWER = ("minLength", "minimum", "minItems", "exclusiveMinimum")
_ALL_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})


@dataclass
class _Comparison:
    released: dict[str, Any]
    live: dict[str, Any]
    found: list[str] = field(default_factory=list)
    seen: set[tuple[str, str, str, Direction]] = field(default_factory=set)

    def resolve(self, doc: dict[str, Any], schema: Any) -> tuple[dict[str, Any], str | None]:
        """The schema a ``$ref`` names (followed to the end), and the last name."""
        name = None
        hops = 0
        while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and hops < 50:
            name = schema["$ref"].rsplit("/", 1)[-1]
            schema = doc.get("components", {}).get("schemas", {}).get(name, {})
            hops += 1
        return (schema if isinstance(schema, dict) else {}), name

    def schema(self, old: Any, new: Any, where: str, direction: Direction) -> None:
        old_s, old_name = self.resolve(self.released, old)
        new_s, new_name = self.resolve(self.live, new)
        if old_name is not None and new_name is not None:
            key = (old_name, new_name, where.split(" ", 1)[0], direction)
            if key in self.seen:
                return
            self.seen.add(key)
        self._types(old_s, new_s, where)
        self._enum(old_s, new_s, where, direction)
        self._variants(old_s, new_s, where, direction)
        if direction == "request":
            self._bounds(old_s, new_s, where)
        self._properties(old_s, new_s, where, direction)
        if "items" in old_s and "items" in new_s:
            self.schema(old_s["items"], new_s["items"], where + "[]", direction)

    def types_of(self, doc: dict[str, Any], schema: dict[str, Any]) -> frozenset[str]:
        """The JSON types a schema admits (every type when it says nothing of them)."""
        declared = schema.get("type")
        if isinstance(declared, str):
            out = {declared}
        elif isinstance(declared, list):
            out = set(declared)
        elif "const" in schema:
            out = {_json_type(schema["const"])}
        elif "enum" in schema:
            out = {_json_type(v) for v in schema["enum"]}
        else:
            members = schema.get("oneOf") or schema.get("anyOf")
            if not members:
                return _ALL_TYPES
            out = set()
            for member in members:
                out |= self.types_of(doc, self.resolve(doc, member)[0])
        if "number" in out:
            out.add("integer")  # a number admits integers
        return frozenset(out)

    def _types(self, old: dict[str, Any], new: dict[str, Any], where: str) -> None:
        lost = self.types_of(self.released, old) - self.types_of(self.live, new)
        if lost:
            self.found.append(f"{where}: the type narrows (no longer {', '.join(sorted(lost))})")

    def _enum(
        self, old: dict[str, Any], new: dict[str, Any], where: str, direction: Direction
    ) -> None:
        if "enum" not in old or "enum" not in new:
            if direction == "request" and "enum" not in old and "enum" in new:
                self.found.append(f"{where}: the type narrows to an enum")
            return
        for value in old["enum"]:
            if value not in new["enum"]:
                self.found.append(f"{where}: the enum value {value!r} disappears")

    def _variants(
        self, old: dict[str, Any], new: dict[str, Any], where: str, direction: Direction
    ) -> None:
        for word in ("oneOf", "anyOf"):
            old_members = [m for m in old.get(word, []) if isinstance(m, dict)]
            if not old_members:
                continue
            other = "anyOf" if word == "oneOf" else "oneOf"
            new_members = [m for m in new.get(word) or new.get(other) or [] if isinstance(m, dict)]
            by_name = {self._member_name(self.live, m): m for m in new_members}
            for member in old_members:
                name = self._member_name(self.released, member)
                if name is None:
                    continue  # a plain member ({"type": "null"}): the type check covers it
                if name not in by_name:
                    self.found.append(f"{where}: the variant {name} disappears")
                else:
                    self.schema(member, by_name[name], f"{where}<{name}>", direction)

    def _member_name(self, doc: dict[str, Any], member: dict[str, Any]) -> str | None:
        resolved, name = self.resolve(doc, member)
        return name or resolved.get("title")

    def _bounds(self, old: dict[str, Any], new: dict[str, Any], where: str) -> None:
        for word in _UPPER:
            if _number(new.get(word)) is not None and (
                _number(old.get(word)) is None or new[word] < old[word]
            ):
                self.found.append(f"{where}: {word} tightens to {new[word]}")
        for word in _LOWER:
            if _number(new.get(word)) is not None and (
                _number(old.get(word)) is None or new[word] > old[word]
            ):
                self.found.append(f"{where}: {word} tightens to {new[word]}")
        if new.get("pattern") not in (None, old.get("pattern")):
            self.found.append(f"{where}: the pattern changes to {new['pattern']!r}")

    def _properties(
        self, old: dict[str, Any], new: dict[str, Any], where: str, direction: Direction
    ) -> None:
        old_props: dict[str, Any] = old.get("properties", {})
        new_props: dict[str, Any] = new.get("properties", {})
        old_required, new_required = set(old.get("required", [])), set(new.get("required", []))
        for name, prop in old_props.items():
            if name not in new_props:
                self.found.append(f"{where}.{name}: the field disappears")
                continue
            if direction == "response" and name in old_required and name not in new_required:
                self.found.append(f"{where}.{name}: the field is no longer always present")
            self.schema(prop, new_props[name], f"{where}.{name}", direction)
        if direction == "request":
            for name in sorted(new_required - old_required):
                self.found.append(f"{where}.{name}: the request gains a required field")

    def operation(self, old: dict[str, Any], new: dict[str, Any], where: str) -> None:
        self._parameters(old.get("parameters", []), new.get("parameters", []), where)
        old_body, new_body = old.get("requestBody"), new.get("requestBody")
        if (
            new_body is not None
            and new_body.get("required")
            and not (old_body is not None and old_body.get("required"))
        ):
            self.found.append(f"{where}: the request body becomes required")
        if old_body is not None:
            if new_body is None:
                self.found.append(f"{where}: the request body disappears")
            else:
                self._content(old_body, new_body, where + " body", "request")
        old_responses: dict[str, Any] = old.get("responses", {})
        new_responses: dict[str, Any] = new.get("responses", {})
        for status, response in old_responses.items():
            if status not in new_responses:
                self.found.append(f"{where}: the response {status} disappears")
            else:
                self._content(response, new_responses[status], f"{where} {status}", "response")

    def _content(
        self, old: dict[str, Any], new: dict[str, Any], where: str, direction: Direction
    ) -> None:
        old_content: dict[str, Any] = old.get("content", {})
        new_content: dict[str, Any] = new.get("content", {})
        for media, body in old_content.items():
            if media not in new_content:
                self.found.append(f"{where}: the media type {media} disappears")
            elif "schema" in body:
                self.schema(body["schema"], new_content[media].get("schema", {}), where, direction)

    def _parameters(self, old: list[dict[str, Any]], new: list[dict[str, Any]], where: str) -> None:
        old_by = {(p.get("in"), p.get("name")): p for p in old}
        new_by = {(p.get("in"), p.get("name")): p for p in new}
        for key, param in old_by.items():
            label = f"{where} {key[0]} parameter {key[1]}"
            if key not in new_by:
                self.found.append(f"{label}: disappears")
                continue
            if new_by[key].get("required") and not param.get("required"):
                self.found.append(f"{label}: becomes required")
            self.schema(param.get("schema", {}), new_by[key].get("schema", {}), label, "request")
        for key, param in new_by.items():
            if key not in old_by and param.get("required"):
                self.found.append(f"{where} {key[0]} parameter {key[1]}: a new required parameter")


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _number(value: Any) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def breaking_changes(released: dict[str, Any], live: dict[str, Any]) -> list[str]:
    """Every promise of ``released`` that ``live`` breaks, in words (empty: it only grew)."""
    comparison = _Comparison(released, live)
    for section in ("paths", "webhooks"):
        old_items: dict[str, Any] = released.get(section, {})
        new_items: dict[str, Any] = live.get(section, {})
        for path, item in old_items.items():
            if path not in new_items:
                comparison.found.append(f"{section} {path}: disappears")
                continue
            for method in METHODS:
                if method not in item:
                    continue
                where = f"{method.upper()} {path}"
                if method not in new_items[path]:
                    comparison.found.append(f"{where}: the operation disappears")
                    continue
                # A webhook's request is what the server sends: a client reads it, as a
                # response of an operation.
                if section == "webhooks":
                    body_old = item[method].get("requestBody", {})
                    body_new = new_items[path][method].get("requestBody", {})
                    comparison._content(body_old, body_new, where + " payload", "response")
                else:
                    comparison.operation(item[method], new_items[path][method], where)
    return comparison.found
