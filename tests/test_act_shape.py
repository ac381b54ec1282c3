"""Every act on a game takes one path: the controllers hand an `ActRequest` to
`Answers.act` (service/seats/), never the game service's `act` themselves, and whether an
API key created a game is decided in one place (`service.play.access.owns`)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import service_sources

ROOT = Path(__file__).resolve().parent.parent
OWNS = ROOT / "service" / "play" / "access.py"


def _direct_acts(source: str) -> list[str]:
    """The ``<x>.act(...)`` calls of a module whose receiver is not the answers."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            receiver = ast.unparse(node.func.value)
            if node.func.attr == "act" and "answers" not in receiver:
                found.append(f"{node.lineno}: {ast.unparse(node.func)}")
    return found


def _owner_comparisons(source: str) -> list[str]:
    """Comparisons with a game's creator (``... == loaded.meta.owner``)."""
    return [
        f"{node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Compare)
        and any(ast.unparse(part).endswith("meta.owner") for part in [node.left, *node.comparators])
    ]


def test_the_controllers_act_only_through_the_answers() -> None:
    controllers = sorted((ROOT / "service" / "api").rglob("*.py"))
    assert len(controllers) > 10
    found = [
        f"{p.relative_to(ROOT)}:{hit}" for p in controllers for hit in _direct_acts(p.read_text())
    ]
    assert found == []


def test_the_owner_check_is_written_once() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{hit}"
        for path in service_sources(ROOT)
        for hit in _owner_comparisons(path.read_text())
    ]
    assert [hit for hit in found if not hit.startswith(str(OWNS.relative_to(ROOT)))] == []
    assert len(found) == 1  # the check found `owns` itself


def test_the_checks_find_what_they_look_for() -> None:
    source = (
        "async def f(games, key, loaded):\n"
        "    if key != loaded.meta.owner:\n"
        "        await games.act(x)\n"
    )
    assert len(_direct_acts(source)) == 1
    assert len(_owner_comparisons(source)) == 1
