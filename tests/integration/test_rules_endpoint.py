"""GET /v1/rules/{game}: every game serves the house rules it plays by, readable as is."""

from __future__ import annotations

import re
from typing import Any

import msgspec
import pytest

from domain import registry

# reST and Markdown markup a client would show verbatim: inline literals and roles,
# emphasis, directives, links, and the project's internal citations (docs/house-rules.md,
# and the older HOUSE-RULES §N).
_MARKUP = re.compile(
    r"``|`|\*\*|:[a-z]+:|^\.\. |\]\(|\|_|house-rules\.md|HOUSE-RULES|§", re.MULTILINE
)


@pytest.mark.parametrize("game", registry.names())
def test_every_game_serves_its_house_rules_in_plain_text(client: Any, game: str) -> None:
    response = client.get(f"/v1/rules/{game}")
    assert response.status_code == 200, response.text
    house_rules = response.json()["house_rules"]
    assert house_rules, f"{game} serves no house rules"
    found = registry.get(game)
    assert found is not None
    assert house_rules == msgspec.to_builtins(found.house_rules())  # the game's own list
    ids = [item["id"] for item in house_rules]
    assert len(set(ids)) == len(ids), f"{game}: house rule ids repeat: {ids}"
    for item in house_rules:
        assert set(item) == {"id", "topic", "text"}
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", item["id"]), item["id"]
        assert item["topic"].strip(), item
        assert item["text"].strip(), item
        for field in ("topic", "text"):
            markup = _MARKUP.search(item[field])
            assert markup is None, f"{game}/{item['id']} {field}: markup {markup.group()!r}"


def test_the_markup_check_catches_rest_literals_and_citations() -> None:
    citations = ("docs/house-rules.md#fbi-release", "HOUSE-RULES §3")
    for text in ("a ``2x`` agent", "see `cards`", "**bold**", ":ref:`x`", *citations):
        assert _MARKUP.search(text), text
    assert _MARKUP.search("+5 +4 -1 and 2x, in order (a) or (b): fine.") is None
