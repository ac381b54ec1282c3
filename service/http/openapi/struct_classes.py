"""The project's Struct classes behind the component schemas, which the passes that read
the code (descriptions, string limits) look at."""

from __future__ import annotations

import inspect
import sys
from typing import Any

import msgspec


def struct_classes() -> dict[str, list[type[msgspec.Struct]]]:
    """Every Struct class of the project, by class name (the schemas' titles)."""
    found: dict[str, list[type[msgspec.Struct]]] = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith(("domain.", "service.")) or module is None:
            continue
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, msgspec.Struct)
                and value.__module__ == name
                and value not in found.get(value.__name__, [])
            ):
                found.setdefault(value.__name__, []).append(value)
    # Types made with defstruct (creation bodies, tickets, tagged rules data) live only in
    # unions.
    from service.views import creation_schemas as creation
    from service.views import matchmaking_schemas as tickets
    from service.views import schemas as wire

    roots = [
        creation.CreateGame,
        tickets.CreateTicket,
        wire.RulesData,
        wire.Move,
        wire.Event,
        wire.StateView,
    ]
    for info in msgspec.inspect.multi_type_info(roots):
        for member in getattr(info, "types", (info,)):
            if isinstance(member, msgspec.inspect.StructType):
                cls = member.cls
                if cls not in found.get(cls.__name__, []):
                    found.setdefault(cls.__name__, []).append(cls)
    return found


def own_doc(cls: type) -> str | None:
    """The class's docstring, or its nearest project base's (tagged copies made with
    ``defstruct`` have none of their own); never msgspec's own."""
    for klass in cls.__mro__:
        if klass is msgspec.Struct or not klass.__module__.startswith(("domain", "service")):
            continue
        doc = klass.__dict__.get("__doc__")
        if doc:
            return inspect.cleandoc(doc)
    return None


def classes_of(key: str, classes: dict[str, list[type[msgspec.Struct]]]) -> list[type[Any]]:
    """The Struct classes a component schema may be of."""
    name = key.rsplit("_", 1)[-1]
    candidates = classes.get(name, [])
    if len(candidates) > 1:  # two games define one name: the key holds the module path
        candidates = [
            c
            for c in candidates
            if key == c.__module__.removeprefix("domain.").replace(".", "_") + "_" + name
        ] or candidates
    return list(candidates)
