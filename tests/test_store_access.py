"""Every Redis access goes through a store object (`service.wiring.Stores`): no module
reaches for another object's raw client (``wiring.store.redis``, ``games.store.redis``, ...).

A store uses its own client as ``self.redis``; the wiring builds the stores from the
clients it opened, never from another object's.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import service_sources

ROOT = Path(__file__).resolve().parent.parent


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


def test_the_wiring_builds_the_stores_from_its_own_clients() -> None:
    source = (ROOT / "service" / "wiring.py").read_text()
    assert "Stores.over(client, blocking," in source
    assert _raw_client_uses(source) == []
