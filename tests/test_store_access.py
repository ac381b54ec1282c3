"""Every Redis access goes through a store object (service/stores.py): no module reaches
for another object's raw client (``ctx.store.redis``, ``games.store.redis``, ...).

A store uses its own client as ``self.redis``; only the context hands the event store's
client to the stores it builds.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import service_sources

ROOT = Path(__file__).resolve().parent.parent
# The one place that may pass a store's client on: building the stores.
ALLOWED = {"service/wiring.py"}


def _raw_client_uses(source: str) -> list[tuple[int, str]]:
    """The ``<something>.redis`` accesses of a module other than ``self.redis``."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "redis":
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id == "self":
                continue
            out.append((node.lineno, ast.unparse(node)))
    return out


def test_no_module_reaches_for_a_stores_raw_client() -> None:
    sources = service_sources(ROOT)
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text}"
        for path in sources
        if path.relative_to(ROOT).as_posix() not in ALLOWED
        for line, text in _raw_client_uses(path.read_text())
    ]
    assert found == []


def test_the_check_finds_a_raw_client() -> None:
    source = (
        "async def f(ctx, games, self):\n"
        "    await ctx.store.redis.get('x')\n"
        "    await games.store.redis.zrem('y', 'z')\n"
        "    await self.redis.get('fine')\n"
    )
    assert _raw_client_uses(source) == [(2, "ctx.store.redis"), (3, "games.store.redis")]


def test_the_context_builds_the_stores_from_the_event_stores_client() -> None:
    uses = _raw_client_uses((ROOT / "service" / "wiring.py").read_text())
    assert [text for _, text in uses] == ["store.redis"]
