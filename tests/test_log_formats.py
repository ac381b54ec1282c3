"""The two log formats (service/telemetry/logs.py): what a line looks like, that no
library's colour codes get into one, and which format `STAKEOUT_LOG_FORMAT` picks."""

from __future__ import annotations

import io
import json
import logging

import pytest

from service.settings import Settings
from service.telemetry.logs import JsonFormatter, TextFormatter, text_logs

# RQ's "Job OK" as it writes it when stdout is a terminal (rq/logutils.py's colorizer).
COLOURED = "Worker w-1: \x1b[34mbots\x1b[39;49;00m: \x1b[32mJob OK\x1b[39;49;00m (j-1)"


def _record(message: str, **extra: object) -> logging.LogRecord:
    record = logging.LogRecord("rq.worker", logging.INFO, __file__, 1, message, (), None)
    record.__dict__.update(extra)
    return record


def test_neither_format_lets_colour_codes_into_a_line() -> None:
    as_json = json.loads(JsonFormatter().format(_record(COLOURED)))
    assert as_json["message"] == "Worker w-1: bots: Job OK (j-1)"
    text = TextFormatter().format(_record(COLOURED))
    assert "\x1b" not in text
    assert text.endswith(" INFO    rq.worker: Worker w-1: bots: Job OK (j-1)"), text


def test_a_text_line_carries_its_duration() -> None:
    text = TextFormatter().format(_record("GET /v1/games 404", status=404, duration_ms=1.5))
    assert text.endswith("rq.worker: GET /v1/games 404  (ms=1.5)"), text


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_auto_is_text_on_a_terminal_and_json_elsewhere() -> None:
    assert text_logs("auto", _Terminal())
    assert not text_logs("auto", io.StringIO())
    assert text_logs("text", io.StringIO())
    assert not text_logs("json", _Terminal())


def test_the_setting_takes_the_three_formats_only() -> None:
    assert Settings.from_env({}).log_format == "auto"
    assert Settings.from_env({"STAKEOUT_LOG_FORMAT": " JSON "}).log_format == "json"
    with pytest.raises(ValueError, match="STAKEOUT_LOG_FORMAT must be one of auto, json, text"):
        Settings.from_env({"STAKEOUT_LOG_FORMAT": "pretty"})
