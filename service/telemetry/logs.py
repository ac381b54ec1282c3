"""Logs: one JSON object per line, with the fields of the current request or job (its
request id, its game), or one readable line each for a person at a terminal
(``STAKEOUT_LOG_FORMAT``: ``auto`` picks text when stderr is a terminal, JSON when not).

Neither format carries a library's terminal colour codes (RQ colours its messages when
stdout is a terminal): they are taken out of every message."""

from __future__ import annotations

import logging
import re
import sys
import time
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import msgspec

# An ASGI scope, as the access log reads it (the web framework's own type stays at the edge).
Scope = Mapping[str, Any]

# The access log: one line per request (service/http/observability.py).
access_log = logging.getLogger("stakeout.access")

# ---- log context -----------------------------------------------------------------------


@dataclass(slots=True)
class LogFields:
    """What every log line of the current request (or job) carries."""

    request_id: str | None = None
    scope: Scope | None = None  # read lazily: routing fills in path_params (game_id) later
    extra: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"request_id": self.request_id, **(self.extra or {})}
        if self.scope is not None:
            game_id = game_id_of(self.scope)
            if game_id is not None:
                out["game_id"] = game_id
        return out


def game_id_of(scope: Scope) -> str | None:
    """The game a request is about, when its route names one (after routing)."""
    game_id: str | None = scope.get("path_params", {}).get("game_id")
    return game_id


# What the current request (or job) adds to every log line it writes.
log_fields: ContextVar[LogFields | None] = ContextVar("stakeout_log_fields", default=None)


# The last whole second seen, and its text.
_SECOND: list[tuple[int, str]] = [(-1, "")]
# ".000+00:00" to ".999+00:00": a line's milliseconds and zone by lookup, not formatting
# (the access line of every request takes its time from here).
_MILLISECONDS = tuple(f".{ms:03d}+00:00" for ms in range(1000))


def _iso(created: float) -> str:
    """``created`` as JsonFormatter's ``time`` (ISO 8601, milliseconds, UTC)."""
    second = int(created)
    last = _SECOND[0]
    if last[0] != second:
        text = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        last = _SECOND[0] = (second, text)
    return last[1] + _MILLISECONDS[int((created - second) * 1000)]


def now_iso() -> str:
    """Now, as a log line's ``time``."""
    return _iso(time.time())


# ---- JSON logs -------------------------------------------------------------------------

_ACCESS_FIELDS = ("method", "route", "path", "status", "duration_ms", "outcome")


# A terminal's colour and style codes (ESC [ ... m), as RQ writes them into its messages.
_COLOUR_CODES = re.compile(r"\x1b\[[0-9;]*m")


def _message(record: logging.LogRecord) -> str:
    message = record.getMessage()
    return _COLOUR_CODES.sub("", message) if "\x1b" in message else message


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, then the context fields."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": _iso(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": _message(record),
        }
        fields = log_fields.get()
        if fields is not None:
            line.update(fields.as_dict())
        for name in _ACCESS_FIELDS:
            if name in record.__dict__:
                line[name] = record.__dict__[name]
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return _ENCODER.encode({k: v for k, v in line.items() if v is not None}).decode()


class TextFormatter(logging.Formatter):
    """One readable line: the local time, the level, where from, the message, then the
    context fields as ``name=value`` (a traceback, when there is one, on the lines below)."""

    def format(self, record: logging.LogRecord) -> str:
        clock = datetime.fromtimestamp(record.created).strftime("%H:%M:%S")
        line = f"{clock} {record.levelname:<7} {record.name}: {_message(record)}"
        fields = log_fields.get()
        context = fields.as_dict() if fields is not None else {}
        if "duration_ms" in record.__dict__:
            context["ms"] = record.__dict__["duration_ms"]
        extra = " ".join(f"{k}={v}" for k, v in context.items() if v is not None)
        if extra:
            line += f"  ({extra})"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


class _WhatWentWrong(logging.Filter):
    """In text logs, of the line per request and the line per job only those that went
    wrong (an answer 4xx or 5xx, a job that failed): one line per request and per bot turn
    would bury everything else at a terminal. JSON logs keep every one."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.__dict__.get("outcome") == "ok":  # a job's line (telemetry/metrics.py)
            return False
        status = record.__dict__.get("status")
        return record.name != access_log.name or not isinstance(status, int) or status >= 400


def text_logs(log_format: str, stream: Any = None) -> bool:
    """Whether ``log_format`` ("auto", "json" or "text") means text lines on ``stream``
    (stderr by default): "auto" does when the stream is a terminal."""
    if log_format == "auto":
        isatty = getattr(stream if stream is not None else sys.stderr, "isatty", None)
        return bool(isatty and isatty())
    return log_format == "text"


_ENCODER = msgspec.json.Encoder(enc_hook=str)
_JSON_HANDLER: list[logging.StreamHandler[Any]] = []  # the one `configure_logging` set up


def configure_logging(level: str = "INFO", log_format: str = "json") -> None:
    """Log lines on stderr for every logger (uvicorn's and RQ's propagate to the root): JSON
    lines, or readable text ones (`text_logs`)."""
    handler = logging.StreamHandler(sys.stderr)
    if text_logs(log_format):
        handler.setFormatter(TextFormatter())
        handler.addFilter(_WhatWentWrong())
        _JSON_HANDLER[:] = []  # access lines through logging, to be filtered and formatted
    else:
        handler.setFormatter(JsonFormatter())
        _JSON_HANDLER[:] = [handler]
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)


def fast_handler() -> logging.StreamHandler[Any] | None:
    """The JSON log stream's handler, when `configure_logging` set one up: access lines
    are written to its stream directly (`service.http.observability`)."""
    return _JSON_HANDLER[0] if _JSON_HANDLER else None


__all__ = [
    "JsonFormatter",
    "LogFields",
    "TextFormatter",
    "configure_logging",
    "fast_handler",
    "game_id_of",
    "log_fields",
    "now_iso",
    "text_logs",
]
