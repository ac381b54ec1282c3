"""openapi/asyncapi.yaml describes the play socket the code serves: the same message types
each way, the same close codes, the same act frames; and it passes the official AsyncAPI
3.0.0 schema (`make lint` checks that too)."""

from __future__ import annotations

from typing import Any

from lint.asyncapi import load, problems
from service.api.v1.play import ACTS, CLIENT_MESSAGES, CLOSE_CODES, PATH, SERVER_MESSAGES

DOCUMENT = load()


def _types(operation: str) -> set[str]:
    """The ``type`` of each message an operation lists."""
    messages = DOCUMENT["components"]["messages"]
    found = set()
    for ref in DOCUMENT["operations"][operation]["messages"]:
        name = ref["$ref"].rsplit("/", 1)[-1]
        payload: dict[str, Any] = messages[name]["payload"]
        if "$ref" in payload:  # an act: its type is its name
            payload = DOCUMENT["components"]["schemas"][payload["$ref"].rsplit("/", 1)[-1]]
            assert name in payload["properties"]["type"]["enum"]
            found.add(name)
        else:
            found.add(payload["properties"]["type"]["const"])
    return found


def test_the_document_is_valid_asyncapi_3() -> None:
    assert DOCUMENT["asyncapi"] == "3.0.0"
    assert problems(DOCUMENT) == []


def test_its_messages_are_the_codes() -> None:
    assert _types("pushed") == set(SERVER_MESSAGES)
    assert _types("sent") == set(CLIENT_MESSAGES)
    act = DOCUMENT["components"]["schemas"]["act"]
    assert set(act["properties"]["type"]["enum"]) == set(ACTS)


def test_its_close_codes_and_address_are_the_codes() -> None:
    channel = DOCUMENT["channels"]["play"]
    assert {int(k): v for k, v in channel["x-close-codes"].items()} == CLOSE_CODES
    assert channel["address"] == PATH.replace(":str", "")
