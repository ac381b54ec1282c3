"""``docs/house-rules.md``, written from every game's own house rules.

Each game keeps the decisions it plays by beside its rules data (``Game.house_rules()``,
served by ``GET /v1/rules/{game}``); the page lists them, one stable anchor per decision
(``#<game>-<id>``) and one per game (``#<game>``), which the code's comments cite.
`tests.domain.test_house_rules_doc` fails while the page and the data disagree; after
changing a game's house rules, write the page again:
``.venv/bin/python -m tests.domain.house_rules_doc``.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from domain import registry
from domain.engine import AnyGame

PAGE = Path(__file__).resolve().parents[2] / "docs" / "house-rules.md"
WIDTH = 92

INTRODUCTION = """\
The rulebooks of the three games leave gaps: printed card lists and score tables that could
not be found, and cases they do not settle. Each game decides them once, in plain words,
beside its rules data (`HOUSE_RULES` in the game's `rulebook.py`), and the server publishes
them with the game's rules: `GET /v1/rules/{game}` → `house_rules`. Every number the
decisions name is in the game's rules data (`cards.py`, served in the same answer).

This page lists every decision, game by game. The code cites a decision by its anchor,
`docs/house-rules.md#<game>-<id>` (`docs/house-rules.md#fbi-release`), and a game's rules as
a whole by its name (`docs/house-rules.md#fbi`). The page is written from the games' own
data, so it never disagrees with what the server plays by: after changing a game's house
rules, run `.venv/bin/python -m tests.domain.house_rules_doc` (a test fails until then). The
API's type descriptions name a decision by its id, as `house_rules` lists it."""


def anchor(game: str, rule_id: str | None = None) -> str:
    """The anchor of a game's section, or of one of its decisions."""
    return game if rule_id is None else f"{game}-{rule_id}"


def _paragraph(text: str) -> str:
    return textwrap.fill(text, WIDTH, break_long_words=False, break_on_hyphens=False)


def _section(game: AnyGame) -> list[str]:
    summary = getattr(game.rulebook(), "summary", "")
    lines = [f'<a id="{anchor(game.name)}"></a>', "", f"## {game.title}", ""]
    if summary:
        lines += [_paragraph(summary), ""]
    lines += [f"Its rules data: `GET /v1/rules/{game.name}`.", ""]
    for rule in game.house_rules():
        lines += [
            f'<a id="{anchor(game.name, rule.id)}"></a>',
            "",
            f"### {rule.topic} (`{rule.id}`)",
            "",
            _paragraph(rule.text),
            "",
        ]
    return lines


def render() -> str:
    """The page, from the registry's games in their order."""
    lines = ["# House rules", "", INTRODUCTION, ""]
    for game in registry.games():
        lines += _section(game)
    return "\n".join(lines).rstrip() + "\n"


def anchors() -> set[str]:
    """Every anchor the page has."""
    return {
        anchor(game.name, rule.id) for game in registry.games() for rule in game.house_rules()
    } | {anchor(game.name) for game in registry.games()}


if __name__ == "__main__":
    PAGE.write_text(render())
    print(f"wrote {PAGE}")
