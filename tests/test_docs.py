"""The README documents what the code does: every problem type and every setting."""

from __future__ import annotations

import re
from pathlib import Path

from service.http.problems import CATALOGUE

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_every_problem_type_is_listed() -> None:
    missing = [code for code in CATALOGUE if f"`{code}`" not in README]
    assert missing == []


def test_every_environment_setting_is_documented() -> None:
    source = (ROOT / "service" / "settings.py").read_text()
    names = set(re.findall(r'e(?:\.get)?\(\s*"([A-Z][A-Z_]+)"', source))
    names |= set(re.findall(r'_parse\(e, "([A-Z][A-Z_]+)"', source))
    assert len(names) >= 10, names
    missing = sorted(n for n in names if f"`{n}`" not in README)
    assert missing == []
