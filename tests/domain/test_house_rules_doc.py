"""docs/house-rules.md holds every decision the code cites, as the games' own data states it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from domain import registry
from tests.domain.house_rules_doc import PAGE, anchors, render

ROOT = Path(__file__).resolve().parents[2]
CITATION = re.compile(r"docs/house-rules\.md#([A-Za-z0-9_-]+)")
SOURCES = ("domain", "service", "workers", "tests", "bench", "docs")
# The older form of a citation, naming a document a clone does not have.
OLD = "HOUSE-RULES"
# Where the old form may not appear: the domain, its tests, and the web client's games.
NO_OLD_FORM = ("domain", "tests/domain", "tests/conformance", "service/web")


def _files(folders: tuple[str, ...]) -> Iterator[Path]:
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in {".py", ".js", ".md", ".html"} and "streams" not in path.parts:
                yield path
    if folders == SOURCES:
        yield ROOT / "README.md"


def test_the_page_is_what_the_games_house_rules_say() -> None:
    assert PAGE.read_text() == render(), (
        "docs/house-rules.md is out of date: run .venv/bin/python -m tests.domain.house_rules_doc"
    )


def test_every_decision_has_its_own_anchor_on_the_page() -> None:
    page = PAGE.read_text()
    found = re.findall(r'<a id="([^"]+)"></a>', page)
    assert len(found) == len(set(found))
    assert set(found) == anchors()
    decisions = sum(len(game.house_rules()) for game in registry.games())
    assert len(found) == decisions + len(registry.games())


def test_every_citation_names_an_anchor_of_the_page() -> None:
    cited: dict[str, list[str]] = {}
    for path in _files(SOURCES):
        for name in CITATION.findall(path.read_text()):
            cited.setdefault(name, []).append(str(path.relative_to(ROOT)))
    assert len(cited) > 20, "the code cites the page"
    unknown = {name: where for name, where in cited.items() if name not in anchors()}
    assert unknown == {}


def test_the_code_cites_the_page_not_a_document_outside_the_repository() -> None:
    # This test names the old form on purpose.
    exempt = {Path(__file__)}
    old: list[str] = []
    for path in _files(NO_OLD_FORM):
        if path in exempt:
            continue
        text = path.read_text()
        if OLD not in text:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if OLD in line:
                old.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert old == []
