"""The SDKs' generated code is what the committed contract generates (`make clients`), and
each package's version names the contract version it came from."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.clients.conftest import ROOT

PYTHON_SDK = ROOT / "clients" / "python"


def test_the_python_wire_types_are_what_the_contract_generates(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(PYTHON_SDK / "generate.py"), "--output", str(tmp_path)],
        check=True,
        timeout=300,
    )
    committed = PYTHON_SDK / "stakeout_client" / "_wire"
    for name in ("models.py", "contract.py", "__init__.py"):
        fresh = (tmp_path / name).read_text()
        assert fresh == (committed / name).read_text(), f"{name} is stale: run `make clients`"


def test_the_python_package_is_versioned_by_its_contract() -> None:
    from stakeout_client import CONTRACT_VERSION, __version__

    contract = json.loads((ROOT / "openapi" / "v1.json").read_text())
    assert CONTRACT_VERSION == __version__ == contract["info"]["version"]
    pyproject = (PYTHON_SDK / "pyproject.toml").read_text()
    assert 'attr = "stakeout_client._wire.contract.CONTRACT_VERSION"' in pyproject
