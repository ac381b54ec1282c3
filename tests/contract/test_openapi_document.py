"""The committed contract matches the app, and is a valid, complete OpenAPI document."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from openapi_spec_validator import validate

from service.app import create_app
from service.http.openapi import finish
from service.settings import Settings
from tests.helpers import API_KEY

CONTRACT = Path(__file__).resolve().parents[2] / "openapi" / "v1.json"


def _live() -> dict[str, Any]:
    app = create_app(Settings(redis_url="redis://unused"))
    document: dict[str, Any] = json.loads(json.dumps(finish(app.openapi_schema.to_schema())))
    return document


def test_the_committed_contract_is_what_the_app_serves() -> None:
    committed = json.loads(CONTRACT.read_text())
    assert committed == _live(), "openapi/v1.json drifted: run `make openapi` and review the diff"


def test_the_contract_validates_as_openapi() -> None:
    validate(json.loads(CONTRACT.read_text()))


def _walk(node: Any, path: str = "") -> Any:
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, f"{path}/{i}")


def test_every_schema_is_complete_for_client_generators() -> None:
    doc = json.loads(CONTRACT.read_text())
    for path, node in _walk(doc["components"]["schemas"]):
        if node.get("type") == "array":
            assert "items" in node, f"array without items at {path}"
        if "oneOf" in node and all("$ref" in o for o in node["oneOf"]):
            assert "discriminator" in node, f"union without discriminator at {path}"
    for route, item in doc["paths"].items():
        for method, op in item.items():
            assert op.get("operationId"), f"{method} {route} has no operationId"
            assert op.get("tags"), f"{method} {route} has no tags"
            assert op.get("summary") or op.get("description"), f"{method} {route} undocumented"
            assert "security" in op, f"{method} {route} declares no security"
            for status, response in op["responses"].items():
                if status.startswith("4"):
                    media = response["content"]
                    assert list(media) == ["application/problem+json"], f"{route} {status}"
    assert doc["components"]["securitySchemes"]
    links = doc["paths"]["/v1/games"]["post"]["responses"]["201"]["links"]
    assert {link["operationId"] for link in links.values()} >= {
        "getGame",
        "postCommitment",
        "postReveal",
    }


def _request_schemas(doc: dict[str, Any]) -> set[str]:
    """Every component a request body reaches."""
    schemas = doc["components"]["schemas"]
    refs = {
        node["$ref"].rsplit("/", 1)[-1]
        for item in doc["paths"].values()
        for op in item.values()
        if isinstance(op, dict)
        for _, node in _walk(op.get("requestBody", {}))
        if "$ref" in node
    }
    seen: set[str] = set()
    while refs:
        name = refs.pop()
        if name not in seen:
            seen.add(name)
            refs |= {n["$ref"].rsplit("/", 1)[-1] for _, n in _walk(schemas[name]) if "$ref" in n}
    return seen


def test_typescript_generators_keep_optional_request_fields_optional() -> None:
    """openapi-typescript with its default flags makes a property with a ``default``
    required; in a request body only ``required`` may say that (``private``, options and
    ``turn_seconds`` stay optional), and the default is written in the description."""
    doc = json.loads(CONTRACT.read_text())
    schemas = doc["components"]["schemas"]
    reached = _request_schemas(doc)
    assert {"CreateFbiGame", "FedsOptions", "HumanSeat", "Commit", "Reveal"} <= reached
    for name in reached:
        required = set(schemas[name].get("required", []))
        for field, prop in schemas[name].get("properties", {}).items():
            assert field in required or "default" not in prop, f"{name}.{field}"
    private = schemas["CreateFbiGame"]["properties"]["private"]
    assert "private" not in schemas["CreateFbiGame"].get("required", [])
    assert private["description"].endswith("Default: `false`.")


def test_every_tag_has_its_value_as_default_so_generated_clients_fill_it_in() -> None:
    doc = json.loads(CONTRACT.read_text())
    tags = [(p, n) for p, n in _walk(doc["components"]["schemas"]) if "const" in n]
    assert len(tags) > 50
    assert [p for p, n in tags if n.get("default") != n["const"]] == []


# What a client developer writes first with the generated client: create a game, move.
FIRST_PROGRAM = '''
"""A client developer's first program: create an FBI game for two people, then make the
first move the server offers, with the client generated from openapi/v1.json."""

import sys

from client import AuthenticatedClient
from client.api.games import create_game, get_game, post_move
from client.models import CreateFbiGame, GameCreatedResponse, GameView, HumanSeat, MoveAccepted

base_url, api_key = sys.argv[1], sys.argv[2]
with AuthenticatedClient(base_url=base_url, token=api_key) as app:
    body = CreateFbiGame(seats=[HumanSeat(), HumanSeat()])  # tags are filled in
    created = create_game.sync(client=app, body=body)
assert isinstance(created, GameCreatedResponse), created
tokens = [seat.token for seat in created.seats]
with AuthenticatedClient(base_url=base_url, token=tokens[0]) as first:
    spectator = get_game.sync(created.id, client=first)
assert isinstance(spectator, GameView), spectator
turn = spectator.awaiting[0]
with AuthenticatedClient(base_url=base_url, token=tokens[turn.seat]) as seat:
    mine = get_game.sync(created.id, client=seat)
    assert isinstance(mine, GameView), mine
    accepted = post_move.sync(created.id, client=seat, body=mine.legal[0])
    assert isinstance(accepted, MoveAccepted), accepted
    after = get_game.sync(created.id, client=seat)
    assert isinstance(after, GameView), after
print(f"created {created.id}, seat {turn.seat} moved {type(mine.legal[0]).__name__}: "
      f"version {spectator.version} -> {accepted.version} ({after.version})")
'''


def test_a_python_client_generates_from_the_contract_without_warnings(
    tmp_path: Path, server_url: str
) -> None:
    """openapi-python-client drops any schema it cannot model, with a warning: none may.
    A small program using the generated client then creates a game and moves on the real
    server; nullable enums come out as one named type each (no ``...Type2Type1`` copies)."""
    venv_bin = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}"}
    command = [str(venv_bin / "openapi-python-client"), "generate", "--path", str(CONTRACT)]
    result = subprocess.run(
        [*command, "--meta", "none", "--output-path", str(tmp_path / "client")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    output = result.stdout + result.stderr
    assert "Warning" not in output, output
    assert "Unable to process" not in output, output
    models = {p.stem for p in (tmp_path / "client" / "models").glob("*.py")}
    assert {"game_view", "fbi_view", "feds_view", "bonnie_clyde_view", "problem"} <= models
    assert {"fbi_agent", "bot_level", "seat_type", "game_status"} <= models
    assert not [m for m in models if "type_2_type" in m or "type_3_type" in m], sorted(models)
    program = tmp_path / "first_program.py"
    program.write_text(FIRST_PROGRAM)
    run = subprocess.run(
        [sys.executable, str(program), server_url, API_KEY],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(tmp_path)},
        check=False,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "moved" in run.stdout, run.stdout
