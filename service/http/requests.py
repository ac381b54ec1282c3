"""Request bodies are decoded once, strictly, straight into the handler's body type.

Litestar's default decodes a JSON body into plain Python objects and then converts them to
the handler's type with msgspec's lax rules, which accept ``"location": "1"`` as an integer.
It also lets two decoder failures escape as 500s: invalid UTF-8 inside a string
(``UnicodeDecodeError``) and deep nesting (``RecursionError``). `StrictRequest` decodes the
raw bytes with ``msgspec.json.decode(body, type=<the handler's body type>, strict=True)``:
wrong types, unknown fields (every request Struct forbids them) and malformed or
undecodable bytes all become one 400 ``invalid-request`` problem, before any handler runs.
The decoded value is already of the body type, so Litestar's later conversion keeps it.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request
from litestar.exceptions import ValidationException
from litestar.types import Empty

from service.http.allowed_values import choices_at, listed, refused_value_path


def body_type(request: Request[Any, Any, Any]) -> Any:
    """The annotation of the handler's ``data`` parameter (Any when it has none)."""
    field = request.route_handler.parsed_data_field
    return Any if field is None else field.annotation


def _whole_floats_as_ints(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_whole_floats_as_ints(v) for v in value]
    if isinstance(value, dict):
        return {k: _whole_floats_as_ints(v) for k, v in value.items()}
    return value


_DECODERS: dict[Any, msgspec.json.Decoder[Any]] = {}


def _decoder(target: Any) -> msgspec.json.Decoder[Any]:
    """One strict decoder per body type. ``msgspec.json.decode(type=...)`` caches what it
    learns of a Struct, but not of a union of them (a move body is a union of every game's
    commands): about 19 µs to work it out again on every call, against 0.1 µs to decode."""
    decoder = _DECODERS.get(target)
    if decoder is None:
        decoder = _DECODERS[target] = msgspec.json.Decoder(target, strict=True)
    return decoder


def decode_body(body: bytes, target: Any) -> Any:
    """``body`` decoded strictly as ``target``; every failure is a `ValidationException`.

    One leniency, JSON Schema's own: a number with a zero fraction (``5.0``) is an integer.
    msgspec's strict mode refuses it, so a refused body is converted again, strictly, with
    such numbers made integers (only then: the common case decodes once).
    """
    try:
        return _decoder(target).decode(body or b"null")
    except msgspec.ValidationError as exc:
        try:
            plain = _whole_floats_as_ints(msgspec.json.decode(body or b"null"))
            return msgspec.convert(plain, target, strict=True)
        except (msgspec.ValidationError, msgspec.DecodeError, UnicodeDecodeError, RecursionError):
            raise ValidationException(
                f"invalid body: {_naming_choices(exc, body, target)}"
            ) from None
    except msgspec.DecodeError as exc:
        raise ValidationException(f"malformed JSON: {exc}") from None
    except UnicodeDecodeError:
        raise ValidationException("malformed JSON: a string is not valid UTF-8") from None
    except RecursionError:
        raise ValidationException("malformed JSON: nested too deeply") from None


def _naming_choices(exc: msgspec.ValidationError, body: bytes, target: Any) -> str:
    """msgspec's message, and for a value outside a closed set the values it allows."""
    message = str(exc)
    path = refused_value_path(message)
    allowed = choices_at(target, body, path) if path else ()
    return f"{message} ({listed(allowed)})" if allowed else message


class StrictRequest(Request[Any, Any, Any]):
    async def json(self) -> Any:
        cached = self._connection_state.json
        if cached is Empty:
            cached = decode_body(await self.body(), body_type(self))
            self._connection_state.json = cached
        return cached
