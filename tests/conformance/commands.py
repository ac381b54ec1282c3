"""Commands a seat may not make: mutations of legal ones, other steps' and other games'.

Mutations are generic: they read a command's fields from its msgspec type, so a new game's
commands are mutated without any code here. An int moves by one (and to -1 and a huge
value), a string takes the other values of its ``Literal`` type, a nested struct (a card)
has each of its fields mutated, a list loses or repeats an element or has its first one
mutated, and an empty optional gets a value.
"""

from __future__ import annotations

import functools
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import msgspec
from msgspec.structs import replace

from tests.conformance.games import Config, all_games, configs, playthrough


def key(command: Any) -> bytes:
    """Commands compare by their JSON (what a client sends)."""
    return msgspec.json.encode(command)


def _plain(tp: Any) -> Any:
    """``tp`` without ``Annotated`` (a described field's type is its first argument)."""
    while get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    return tp


def _literals(tp: Any) -> list[Any]:
    tp = _plain(tp)
    if get_origin(tp) is Literal:
        return list(get_args(tp))
    if get_origin(tp) in (Union, types.UnionType):
        return [v for arg in get_args(tp) for v in _literals(arg)]
    return []


def _members(tp: Any) -> list[Any]:
    """The non-None members of a union type (or the type itself)."""
    tp = _plain(tp)
    if get_origin(tp) in (Union, types.UnionType):
        return [a for a in get_args(tp) if a is not type(None)]
    return [tp]


def _fields(value: msgspec.Struct) -> list[tuple[str, Any]]:
    return [(f.name, f.type) for f in msgspec.structs.fields(type(value))]


def alternatives(value: Any, tp: Any) -> list[Any]:
    """Values of type ``tp`` near ``value`` (never ``value`` itself)."""
    out: list[Any] = []
    if isinstance(value, bool):
        out.append(not value)
    elif isinstance(value, int):
        out += [value + 1, value - 1, -1, 10**6]
    elif isinstance(value, str):
        out += _literals(tp) or [value + "?"]
    elif isinstance(value, msgspec.Struct):
        for name, field_type in _fields(value):
            out += [
                replace(value, **{name: alt})
                for alt in alternatives(getattr(value, name), field_type)
            ]
    elif isinstance(value, list):
        (element,) = get_args(_plain(_members(tp)[0])) or (Any,)
        out.append([])
        if value:
            out += [value[:-1], [*value, value[-1]]]
            out += [[alt, *value[1:]] for alt in alternatives(value[0], element)]
    elif value is None:
        for member in _members(tp):
            if member is int:
                out += [0, 1]
            out += _literals(member)
    return [alt for alt in out if alt != value]


def mutations(command: msgspec.Struct) -> list[Any]:
    """``command`` with one field changed, every way `alternatives` knows."""
    out = []
    for name, field_type in _fields(command):
        for alt in alternatives(getattr(command, name), field_type):
            out.append(replace(command, **{name: alt}))
    return out


@functools.cache
def pool(config: Config) -> list[Any]:
    """Every command offered anywhere in the configuration's playthrough, once each."""
    game = config.game
    seen: dict[bytes, Any] = {}
    for position in playthrough(config).positions:
        state = position.match.state
        for seat in range(config.seats):
            for command in game.legal(state, seat):
                seen.setdefault(key(command), command)
    return list(seen.values())


@functools.cache
def foreign(name: str) -> list[Any]:
    """One command of each kind the other games offered in one of their playthroughs."""
    out: dict[str, Any] = {}
    for other in all_games():
        if other.name == name:
            continue
        first = next(c for c in configs() if c.game is other)
        for command in pool(first):
            out.setdefault(type(command).__name__ + other.name, command)
    return list(out.values())
