"""The docs say what the code does, and the README is a front door that leads somewhere:
every problem type is in the API guide with its status, every setting is in the settings
page (and nothing else is), the README names only files that exist and indexes every page
of docs/."""

from __future__ import annotations

import re
from pathlib import Path

from service.http.problems import CATALOGUE

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
API_GUIDE = (ROOT / "docs" / "api-guide.md").read_text()
SETTINGS_PAGE = (ROOT / "docs" / "settings.md").read_text()
# Where a path in the README may start: the repository's folders and top-level files.
TOP = (
    "docs",
    "domain",
    "service",
    "workers",
    "stakeout",
    "openapi",
    "tests",
    "bench",
    "k8s",
    "clients",
)


def _section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def _first_cells(table_text: str) -> list[str]:
    """The first cell of every row of the markdown tables in ``table_text``."""
    rows = [line for line in table_text.splitlines() if line.startswith("| ")]
    return [row.split(" | ")[0].removeprefix("| ") for row in rows]


def test_every_problem_type_is_in_the_api_guide_with_its_status() -> None:
    problems = _section(API_GUIDE, "Problems")
    missing = [
        (code, status)
        for code, (status, _) in CATALOGUE.items()
        if not re.search(rf"^\| `{re.escape(code)}` \| {status} \| \S", problems, re.M)
    ]
    assert missing == []
    listed = re.findall(r"^\| `([a-z-]+)` \| \d{3} \|", problems, re.M)
    assert sorted(listed) == sorted(CATALOGUE)  # nothing listed that the server never answers


def _settings_read() -> set[str]:
    """Every variable `Settings.from_env` reads."""
    from service.settings import ENVIRONMENT

    return {variable for variables, _ in ENVIRONMENT.values() for variable in variables}


def test_every_environment_setting_is_in_the_settings_table_and_only_those() -> None:
    names = _settings_read()
    documented = {
        n for cell in _first_cells(SETTINGS_PAGE) for n in re.findall(r"`([A-Z_]+)`", cell)
    }
    assert sorted(names - documented) == []
    assert sorted(documented - names) == []


def test_the_readme_is_a_front_door() -> None:
    assert len(README.splitlines()) <= 250


def _named_paths(text: str) -> set[str]:
    """Repository paths the text names: link targets that are not URLs, and paths under a
    top-level folder (`docs/x.md`, `bench/move_path.py`, `service/`)."""
    links = {t for t in re.findall(r"\]\(([^)\s#]+)", text) if "://" not in t}
    top = "|".join(TOP)
    paths = set(re.findall(rf"(?<![\w/.$-])((?:{top})/(?:[\w./-]*[\w/])?)", text))
    return links | paths | set(re.findall(r"\b(Dockerfile|Makefile)\b", text))


def test_the_readme_names_only_files_that_exist() -> None:
    named = _named_paths(README)
    assert "docs/api-guide.md" in named  # the regexes find what the README names
    assert "bench/move_path.py" in named
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert missing == []


def test_every_page_of_docs_is_in_the_readme_index_once() -> None:
    index = _section(README, "Documentation")
    entries = re.findall(r"^- \[(docs/[\w.-]+\.md)\]\(\1\) — \S", index, re.M)
    pages = sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))
    assert sorted(entries) == pages
    assert len(entries) == len(set(entries))


def test_every_page_of_the_web_table_is_in_the_web_client_page() -> None:
    page = (ROOT / "docs" / "web-client.md").read_text()
    rows = "\n".join(_first_cells(page))
    for html in sorted((ROOT / "service" / "web").glob("*.html")):
        name = "/web/" if html.name == "index.html" else f"/web/{html.name}"
        assert f"`{name}" in rows, f"{html.name} is not in docs/web-client.md's table"
