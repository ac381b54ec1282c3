"""One component per named string Literal, referenced wherever its values appear."""

from __future__ import annotations

import sys
import typing
from typing import Any

from domain import registry

_ENUM_TEXT = {
    "BotLevel": "A bot's level: random (uniform over legal moves), greedy (a one-move "
    "heuristic), expert (a search over what its seat can know).",
    "SeatType": "Who plays a seat: human (a client), bot (the server) or open (nobody "
    "yet: claimed with its invite).",
    "GameStatus": "A game's status: waiting (a seat is open), active, finished (with a "
    "result), abandoned (nobody acted for STAKEOUT_ABANDON_SECONDS) or aborted (by its "
    "creator).",
    "GameName": "A game this server runs.",
    "EventKind": "A webhook (and account feed) notification kind.",
    "TicketStatus": "A matchmaking ticket's status: waiting, matching (seated, its game being "
    "made), matched, cancelled or expired.",
    "FbiColour": "An FBI character colour.",
    "FbiCardColour": "An FBI card colour (purple: the slammer cards).",
    "FbiAgent": "An FBI field agent: a colour, or 2x (doubles the other selected agent).",
}


def _named_enums() -> dict[tuple[str, ...], str]:
    """The project's named string Literals (``Colour``, ``BotLevel``…), by their values;
    a game's own are prefixed with its name (``FbiColour``, ``FedsColour``)."""
    games = {g: "".join(p.title() for p in g.split("_")) for g in registry.names()}
    found: dict[tuple[str, ...], str] = {}
    modules = [
        (name, module)
        for name, module in sys.modules.items()
        if name.startswith(("domain.", "service.")) and module is not None
    ]
    # Shared modules first: a game module that imports BotLevel does not own it.
    modules.sort(key=lambda item: (item[0].split(".")[1] in games, item[0]))
    for module_name, module in modules:
        game = module_name.split(".")[1] if module_name.startswith("domain.") else ""
        for name, value in sorted(vars(module).items()):
            if typing.get_origin(value) is not typing.Literal:
                continue
            values = typing.get_args(value)
            if not values or not all(isinstance(v, str) for v in values):
                continue
            found.setdefault(tuple(values), games.get(game, "") + name)
    return found


def name_enums(doc: dict[str, Any]) -> None:
    """One component per named enum, referenced wherever its values appear (nullable ones
    as ``oneOf: [$ref, null]``), so client generators make one type per concept with the
    name a person would write, instead of one per property (or three per nullable one)."""
    named = _named_enums()
    schemas = doc["components"]["schemas"]
    used: dict[str, list[str]] = {}

    def rewrite(node: dict[str, Any]) -> None:
        values = node.get("enum")
        if not isinstance(values, list):
            return
        nullable = None in values
        key = tuple(v for v in values if v is not None)
        name = named.get(key)
        if name is None or not key:
            return
        used[name] = list(key)
        ref = {"$ref": f"#/components/schemas/{name}"}
        for field in ("enum", "type"):
            node.pop(field, None)
        if nullable:
            node["oneOf"] = [ref, {"type": "null"}]
        else:
            node.update(ref)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            rewrite(node)
            for value in list(node.values()):
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(doc["components"]["schemas"])
    walk(doc.get("paths", {}))
    for name, values in used.items():
        text = _ENUM_TEXT.get(name, f"One of: {', '.join(values)}.")
        schemas[name] = {"type": "string", "enum": values, "title": name, "description": text}
