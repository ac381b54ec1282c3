"""Every bench script still imports (mypy checks their types; this checks that what they
import at run time is there: service/telemetry/metrics.py's wrapper once moved to
service/http/observability.py), and runs only as a script. Running them is not a test
(bench/: speed is measured, not asserted)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.mark.parametrize("script", sorted(BENCH.glob("*.py")), ids=lambda p: p.name)
def test_a_bench_script_imports(script: Path) -> None:
    assert 'if __name__ == "__main__":' in script.read_text(), f"{script.name} runs on import"
    spec = importlib.util.spec_from_file_location(f"bench_{script.stem}", script)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
