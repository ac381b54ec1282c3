"""The Problem component: the body of every error answer."""

from __future__ import annotations

from typing import Any

from service.http.problems import CATALOGUE, TYPE_PREFIX


def problem_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "description": "An RFC 9457 problem. Branch on `type`; `detail` is for people.",
        "required": ["type", "title", "status", "detail"],
        "properties": {
            "type": {
                "type": "string",
                "enum": [TYPE_PREFIX + code for code in CATALOGUE],
                "description": "Stable problem type.",
            },
            "title": {"type": "string", "description": "The type's summary, for people."},
            "status": {
                "type": "integer",
                "minimum": 400,
                "maximum": 599,
                "description": "The HTTP status of the answer.",
            },
            "detail": {
                "type": "string",
                "description": "What went wrong this time, for people (do not parse it).",
            },
            "instance": {"type": "string", "description": "The request it answers, if known."},
            "current_version": {
                "type": "integer",
                "description": "With version-mismatch: the game's current version.",
            },
            "preimage": {
                "type": "string",
                "description": (
                    "With reveal-mismatch: the exact string the server hashed from the "
                    "revealed move and salt (UTF-8, then SHA-256 in lowercase hex), so a "
                    "client can compare it with the string it hashed. It holds the caller's "
                    "own move only."
                ),
            },
        },
    }
