"""Regenerates the SDK's wire types from the contract (`make clients` runs it).

datamodel-code-generator turns every schema of ``openapi/v1.json`` into a msgspec Struct
(tagged unions for the moves, events and per-game views); ruff then formats the module the
way the repository's lint expects. The output depends only on the contract and the pinned
generator and ruff versions, so a test regenerates it and compares it with the committed
copy (tests/clients/test_generated_code.py).

    python clients/python/generate.py [--contract openapi/v1.json] [--output PATH]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CONTRACT = ROOT / "openapi" / "v1.json"
PACKAGE = HERE / "stakeout_client" / "_wire"

# Every option is a decision of the output's shape; the reasons are in clients/python/README.md.
OPTIONS = [
    "--input-file-type", "openapi",
    "--output-model-type", "msgspec.Struct",
    "--target-python-version", "3.11",
    "--use-annotated",
    "--use-union-operator",
    "--use-standard-collections",
    "--enum-field-as-literal", "all",
    "--use-schema-description",
    "--collapse-root-models",
    "--keyword-only",
    "--strict-nullable",
    "--disable-timestamp",
    "--formatters", "builtin",
]  # fmt: skip

HEADER = '''"""The wire types, generated from openapi/v1.json (`make clients`): never edit.

Contract version {version}.
"""
# ruff: noqa
# mypy: ignore-errors
'''


def generate(contract: Path, output: Path) -> None:
    """Writes ``models.py`` and ``contract.py`` (the contract's version) into ``output``."""
    version = json.loads(contract.read_text())["info"]["version"]
    output.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        models = Path(scratch) / "models.py"
        generator = [sys.executable, "-m", "datamodel_code_generator"]
        subprocess.run(
            [*generator, "--input", str(contract), "--output", str(models), *OPTIONS],
            check=True,
            capture_output=True,
        )
        body = models.read_text()
        # The generator's own first lines name the input file, which differs by checkout.
        body = "\n".join(line for line in body.splitlines() if not line.startswith("#   filename:"))
        models.write_text(HEADER.format(version=version) + body + "\n")
        ruff = [sys.executable, "-m", "ruff"]
        settings = ["--config", str(ROOT / "pyproject.toml"), "--no-cache"]
        subprocess.run([*ruff, "format", *settings, "--quiet", str(models)], check=True)
        (output / "models.py").write_text(models.read_text())
    (output / "contract.py").write_text(
        '"""The contract version these wire types were generated from (`make clients`)."""\n\n'
        f'CONTRACT_VERSION = "{version}"\n'
    )
    (output / "__init__.py").write_text(
        '"""Generated from openapi/v1.json by clients/python/generate.py: do not edit."""\n'
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contract", type=Path, default=CONTRACT)
    parser.add_argument("--output", type=Path, default=PACKAGE)
    args = parser.parse_args()
    generate(args.contract, args.output)


if __name__ == "__main__":
    main()
