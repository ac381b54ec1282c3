"""`make lint`: openapi/asyncapi.yaml checked against the official AsyncAPI 3.0.0 JSON Schema
(npm's @asyncapi/specs, installed in lint/asyncapi-schema/ by the test environment's set-up),
and every ``$ref`` of it resolved (its own, and openapi/v1.json's schemas)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = ROOT / "openapi" / "asyncapi.yaml"
SCHEMA = ROOT / "lint/asyncapi-schema/node_modules/@asyncapi/specs/schemas/3.0.0-without-$id.json"


def load(path: Path = DOCUMENT) -> dict[str, Any]:
    """The document as JSON sees it (YAML's integer keys, the close codes, as strings)."""
    loaded: dict[str, Any] = json.loads(json.dumps(yaml.safe_load(path.read_text())))
    return loaded


def _local_refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for v in node.values() for r in _local_refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _local_refs(v)]
    return []


def _resolves(document: dict[str, Any], ref: str) -> bool:
    node: Any = document
    for part in ref.removeprefix("/").split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def problems(document: dict[str, Any]) -> list[str]:
    schema = json.loads(SCHEMA.read_text())
    validator = jsonschema.Draft7Validator(schema)
    found = [
        f"{'/'.join(map(str, e.absolute_path)) or '(document)'}: {e.message[:300]}"
        for e in validator.iter_errors(document)
    ]
    openapi = json.loads((DOCUMENT.parent / "v1.json").read_text())
    for ref in _local_refs(document):
        target, _, pointer = ref.partition("#")
        base = document if not target else openapi if target == "v1.json" else None
        if base is None or not _resolves(base, pointer):
            found.append(f"unresolved $ref {ref}")
    return found


def main() -> int:
    if not SCHEMA.exists():
        print(f"{SCHEMA} is missing: make .venv/.installed-stamp installs it", file=sys.stderr)
        return 1
    found = problems(load())
    for line in found:
        print(f"{DOCUMENT.relative_to(ROOT)}: {line}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
