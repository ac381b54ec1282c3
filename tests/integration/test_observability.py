"""Metrics, request ids and JSON logs, against the real app and a real Redis.

Counters live in the process's registry and tests in one process share it, so every
assertion compares a scrape before with a scrape after.
"""

from __future__ import annotations

import asyncio
import bisect
import io
import json
import logging
import random
import re
import sys
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from prometheus_client import Histogram
from prometheus_client.parser import text_string_to_metric_families

from domain.match import CommitSeal
from domain.sealed import commitment
from service.http import observability
from service.http.observability import (
    BATCH,
    FLUSH_SECONDS,
    LINES_PER_WRITE,
    AccessLine,
    add_observations,
    instrument,
)
from service.settings import Settings
from service.telemetry.logs import JsonFormatter, LogFields, configure_logging, log_fields
from service.telemetry.metrics import HTTP_LATENCY, HTTP_REQUESTS, timed_job
from service.wiring import open_wiring
from tests.helpers import API_KEY, auth, create, view, wait_for

HUMANS2 = [{"type": "human"}, {"type": "human"}]
BOTS2 = [{"type": "bot", "level": "random"}, {"type": "bot", "level": "random"}]
GAME_ROUTE = "/v1/games/{game_id}"

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(client: Any) -> tuple[Samples, dict[str, str]]:
    """Every sample of /metrics, keyed by (sample name, labels); and each family's type."""
    response = client.get("/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    samples: Samples = {}
    types: dict[str, str] = {}
    for family in text_string_to_metric_families(response.text):
        types[family.name] = family.type
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples, types


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def delta(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


def test_requests_are_counted_by_route_template_and_status_with_latency(client: Any) -> None:
    before, _ = scrape(client)
    game_id = create(client, "fbi", HUMANS2)["id"]
    view(client, game_id)
    view(client, game_id)
    assert client.get("/v1/games/" + "0" * 24).status_code == 404
    assert client.get("/no/such/path/" + game_id).status_code == 404
    after, types = scrape(client)

    requests = "stakeout_http_requests_total"
    assert delta(before, after, requests, method="POST", route="/v1/games", status="201") == 1
    assert delta(before, after, requests, method="GET", route=GAME_ROUTE, status="200") == 2
    assert delta(before, after, requests, method="GET", route=GAME_ROUTE, status="404") == 1
    assert delta(before, after, requests, method="GET", route="unmatched", status="404") == 1
    # Bounded labels: no raw path (so no game id) ever becomes a label value.
    routes = {dict(labels).get("route", "") for _, labels in after}
    assert not any(game_id in route or "0" * 24 in route for route in routes)

    assert types["stakeout_http_request_duration_seconds"] == "histogram"
    latency = "stakeout_http_request_duration_seconds"
    labels = {"method": "GET", "route": GAME_ROUTE}
    assert delta(before, after, f"{latency}_count", **labels) == 3
    assert delta(before, after, f"{latency}_bucket", le="+Inf", **labels) == 3
    assert delta(before, after, f"{latency}_sum", **labels) > 0
    finite = [
        v
        for (name, lbl), v in after.items()
        if name == f"{latency}_bucket" and dict(lbl).get("route") == GAME_ROUTE
    ]
    assert len(finite) > 5  # real buckets, not just +Inf


def test_metrics_stay_out_of_the_openapi_document(client: Any) -> None:
    paths = client.get("/schema/openapi.json").json()["paths"]
    assert "/metrics" not in paths
    assert "/v1/games" in paths


def _first_mover(client: Any, game_id: str, tokens: list[str]) -> tuple[str, dict[str, Any]]:
    action = view(client, game_id)["awaiting"][0]
    assert action["action"] == "move"
    token = tokens[action["seat"]]
    return token, view(client, game_id, token)["legal"][0]


def test_moves_applied_and_idempotent_replays_are_counted(client: Any) -> None:
    created = create(client, "fbi", HUMANS2)
    game_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    token, move = _first_mover(client, game_id, tokens)
    before, _ = scrape(client)
    headers = {**auth(token), "Idempotency-Key": "observed-move"}
    first = client.post(f"/v1/games/{game_id}/moves", json=move, headers=headers)
    again = client.post(f"/v1/games/{game_id}/moves", json=move, headers=headers)
    assert first.status_code == again.status_code == 200, again.text
    assert again.json()["replayed"] is True
    after, _ = scrape(client)
    assert delta(before, after, "stakeout_moves_applied_total", game="fbi", act="move") == 1
    assert delta(before, after, "stakeout_idempotent_replays_total", game="fbi") == 1
    assert delta(before, after, "stakeout_append_conflicts_total", game="fbi") == 0


def _play_to_sealed_step(client: Any, game_id: str, tokens: list[str]) -> dict[int, Any]:
    for _ in range(50):
        awaiting = view(client, game_id)["awaiting"]
        if all(a["action"] == "commit" for a in awaiting) and len(awaiting) == len(tokens):
            return {a["seat"]: a for a in awaiting}
        token, move = _first_mover(client, game_id, tokens)
        response = client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(token))
        assert response.status_code == 200, response.text
    raise AssertionError("no sealed step reached")


def test_an_append_conflict_is_counted_and_retried(client: Any, settings: Settings) -> None:
    """Two writers (this test's GameService and the app's, like two API processes): the
    second one appends between the first one's read and its append."""
    created = create(client, "fbi", HUMANS2)
    game_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    awaiting = _play_to_sealed_step(client, game_id, tokens)
    step = awaiting[0]["step"]
    moves = [view(client, game_id, t)["legal"][0] for t in tokens]
    digests = [commitment(game_id, step, s, moves[s], "ab" * 16) for s in (0, 1)]
    before, _ = scrape(client)
    calls: list[int] = []

    def decide(loaded: Any, seed: bytes) -> CommitSeal:
        calls.append(loaded.match.version)
        if len(calls) == 1:  # the other writer wins the race for this version
            response = client.post(
                f"/v1/games/{game_id}/commitments",
                json={"commitment": digests[1]},
                headers=auth(tokens[1]),
            )
            assert response.status_code == 200, response.text
        return CommitSeal(0, digests[0], step)

    async def write() -> int:
        async with open_wiring(settings) as wiring:
            # A choice made on the state (as a bot's is): called again after the lost race.
            return (await wiring.games.act_for_bot(game_id, decide, "race")).version

    version = asyncio.run(write())
    after, _ = scrape(client)
    assert len(calls) == 2
    assert calls[1] == calls[0] + 1  # re-decided on the fresh state
    assert version == calls[1] + 1
    assert delta(before, after, "stakeout_append_conflicts_total", game="fbi") == 1
    assert delta(before, after, "stakeout_moves_applied_total", game="fbi", act="commit") == 2


def test_queue_depth_then_worker_job_latency_and_acts(
    client: Any, dispatcher: None, request: pytest.FixtureRequest
) -> None:
    # No worker yet: the bot job waits in its queue.
    game_id = create(client, "fbi", BOTS2)["id"]
    # The bot job is enqueued by the dispatcher, just after the creation.
    samples, types = wait_for(
        lambda: (
            (found := scrape(client))
            and value(found[0], "stakeout_queue_depth", queue="bots") >= 1
            and found
        )
    )
    assert types["stakeout_queue_depth"] == "gauge"
    assert value(samples, "stakeout_queue_depth", queue="bots") >= 1
    assert ("stakeout_queue_depth", frozenset({("queue", "scoring")})) in samples
    # A real worker process runs the jobs and records their run time in Redis.
    request.getfixturevalue("worker")
    start = view(client, game_id)["version"]
    wait_for(lambda: view(client, game_id)["version"] > start + 2, timeout=60)

    def observed() -> Samples | None:
        samples, _ = scrape(client)
        count = value(samples, "stakeout_worker_job_duration_seconds_count", job="bot_turn")
        return samples if count >= 2 else None

    samples = wait_for(observed, timeout=30)
    job = {"job": "bot_turn"}
    count = value(samples, "stakeout_worker_job_duration_seconds_count", **job)
    inf = value(samples, "stakeout_worker_job_duration_seconds_bucket", le="+Inf", **job)
    small = value(samples, "stakeout_worker_job_duration_seconds_bucket", le="0.01", **job)
    assert inf == count
    assert small <= count
    assert value(samples, "stakeout_worker_job_duration_seconds_sum", **job) > 0
    # Every act the workers appended (bot turns, then the scoring job) is counted once,
    # cluster-wide: as many as the finished game's log holds (each batch records its act).
    assert scrape(client)[1]["stakeout_worker_acts"] == "counter"
    wait_for(lambda: view(client, game_id)["result"] is not None, timeout=120)

    def replayed_acts() -> list[str] | None:
        # The game's end shows at once; its scoring job appends the result a moment later.
        replay = client.get(f"/v1/games/{game_id}/replay", headers=auth(API_KEY)).json()
        acts = [r["act"]["kind"] for r in replay["events"] if r["act"] is not None]
        return acts if "result" in acts else None

    acts = wait_for(replayed_acts, timeout=60)

    def counted() -> dict[str, float]:
        samples, _ = scrape(client)
        return {
            dict(labels)["act"]: v
            for (name, labels), v in samples.items()
            if name == "stakeout_worker_acts_total" and ("game", "fbi") in labels
        }

    expected = {kind: float(acts.count(kind)) for kind in set(acts)}
    assert wait_for(lambda: counted() == expected or None, timeout=30)


REQUEST_ID = re.compile(r"^[0-9a-f]{32}$")


def test_request_id_is_echoed_generated_and_on_problem_responses(client: Any) -> None:
    given = client.get("/healthz", headers={"X-Request-ID": "trace-42/abc"})
    assert given.headers["x-request-id"] == "trace-42/abc"
    generated = client.get("/healthz").headers["x-request-id"]
    assert REQUEST_ID.match(generated)
    assert client.get("/healthz").headers["x-request-id"] != generated
    # Problem responses carry it too: from a handler, from auth, and before any route.
    unknown = client.get("/v1/games/" + "0" * 24, headers={"X-Request-ID": "r-404"})
    assert unknown.status_code == 404
    assert unknown.headers["content-type"].startswith("application/problem+json")
    assert unknown.headers["x-request-id"] == "r-404"
    refused = client.post("/v1/games", json={"game": "fbi", "seats": HUMANS2})
    assert refused.status_code == 401
    assert REQUEST_ID.match(refused.headers["x-request-id"])
    assert client.get("/nowhere", headers={"X-Request-ID": "r"}).headers["x-request-id"] == "r"
    # Not trusted when too long or unprintable: replaced by a generated one.
    for bad in ("x" * 129, "a\tb"):
        echoed = client.get("/healthz", headers={"X-Request-ID": bad}).headers["x-request-id"]
        assert REQUEST_ID.match(echoed), echoed
    assert client.get("/healthz", headers={"X-Request-ID": "y" * 128}).headers["x-request-id"] == (
        "y" * 128
    )


@pytest.fixture
def json_lines() -> Iterator[io.StringIO]:
    """The service's JSON formatter on the ``stakeout`` loggers, into a buffer."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("stakeout")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield stream
    logger.removeHandler(handler)
    logger.setLevel(level)


def _lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_access_log_is_json_with_the_request_id(client: Any, json_lines: io.StringIO) -> None:
    game_id = create(client, "fbi", HUMANS2)["id"]
    response = client.get(f"/v1/games/{game_id}", headers={"X-Request-ID": "log-me"})
    assert response.status_code == 200
    client.get("/v1/games/" + "0" * 24, headers={"X-Request-ID": "log-404"})
    lines = _lines(json_lines)
    line = next(x for x in lines if x.get("request_id") == "log-me")
    assert line["logger"] == "stakeout.access"
    assert line["level"] == "INFO"
    assert line["method"] == "GET"
    assert line["route"] == GAME_ROUTE
    assert line["status"] == 200
    assert line["game_id"] == game_id
    assert line["duration_ms"] >= 0
    assert {"time", "message"} <= line.keys()
    missing = next(x for x in lines if x.get("request_id") == "log-404")
    assert missing["status"] == 404
    # A path no route matched: the metrics' one label, and the path itself in the line.
    client.get("/no/such/thing", headers={"X-Request-ID": "log-unmatched"})
    unmatched = next(x for x in _lines(json_lines) if x.get("request_id") == "log-unmatched")
    assert (unmatched["route"], unmatched["path"]) == ("unmatched", "/no/such/thing")
    assert unmatched["message"] == "GET /no/such/thing 404"


def test_a_job_logs_a_json_line_with_its_duration(json_lines: io.StringIO) -> None:
    with timed_job("bot_turn", "a" * 24):
        logging.getLogger("stakeout.test").info("inside the job")
    inside, done = _lines(json_lines)
    assert inside["game_id"] == done["game_id"] == "a" * 24
    assert inside["job"] == done["job"] == "bot_turn"
    assert done["outcome"] == "ok"
    assert done["duration_ms"] >= 0
    assert "request_id" not in done


def _sample(metric: Any, name: str, **labels: str) -> float:
    total: float = sum(
        s.value
        for family in metric.collect()
        for s in family.samples
        if s.name == name and s.labels == labels
    )
    return total


def _noop_app() -> Litestar:
    from litestar import get

    @get("/noop")
    async def noop() -> str:
        return "ok"

    return instrument(Litestar(route_handlers=[noop], logging_config=None))


async def _call(app: Litestar, request_id: str) -> None:
    scope = {
        "type": "http",
        "method": "GET",
        "path": "/noop",
        "raw_path": b"/noop",
        "query_string": b"",
        "headers": [(b"x-request-id", request_id.encode())],
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "scheme": "http",
        "server": ("testserver", 80),
        "client": ("127.0.0.1", 1),
        "root_path": "",
        "state": {},
    }

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        pass

    await app(scope, receive, send)  # type: ignore[arg-type]


def test_access_lines_and_metrics_leave_in_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """As `stakeout serve` logs (configure_logging: the fast path), the access lines of the
    answers finished within FLUSH_SECONDS are written together, every one whole and in
    order, and the HTTP metrics are counted at the same moment; nothing before. Lines are
    written sooner when LINES_PER_WRITE of them wait."""
    from service.telemetry import logs

    writes: list[str] = []

    class Stream(io.StringIO):
        def write(self, text: str) -> int:
            writes.append(text)
            return len(text)

    BATCH.flush()  # whatever earlier tests left
    monkeypatch.setattr(sys, "stderr", Stream())
    # configure_logging points the fast path at that stream: put it back afterwards.
    monkeypatch.setattr(logs, "_JSON_HANDLER", [])
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    seen: dict[str, Any] = {}

    def so_far() -> tuple[float, float]:
        """Requests counted, and latencies observed, for GET /noop."""
        labels = {"method": "GET", "route": "/noop"}
        return (
            _sample(HTTP_REQUESTS, "stakeout_http_requests_total", **labels, status="200"),
            _sample(HTTP_LATENCY, "stakeout_http_request_duration_seconds_count", **labels),
        )

    try:
        configure_logging("INFO")
        app = _noop_app()

        async def scenario() -> None:
            before = so_far()
            # No timer may fire while the batches fill, however loaded the machine: the flush
            # is due in an hour here, and BATCH.flush() below does what the timer does.
            monkeypatch.setattr(observability, "FLUSH_SECONDS", 3600.0)
            for turn in range(3):
                await asyncio.gather(*(_call(app, f"turn-{turn}-{i}") for i in range(10)))
                await asyncio.sleep(0)
            seen["writes before"] = len(writes)
            seen["counted before"] = [a - b for a, b in zip(so_far(), before, strict=True)]
            BATCH.flush()
            seen["counted after"] = [a - b for a, b in zip(so_far(), before, strict=True)]
            # More lines than LINES_PER_WRITE: written as they fill up, the rest at the flush.
            await asyncio.gather(
                *(_call(app, f"many-{i}") for i in range(2 * LINES_PER_WRITE + 22))
            )
            seen["full writes"] = writes[1:]
            BATCH.flush()
            # The timer itself: one line, written FLUSH_SECONDS later with no one asking
            # (waited for as a condition, not for a time).
            monkeypatch.setattr(observability, "FLUSH_SECONDS", FLUSH_SECONDS)
            written = len(writes)
            await _call(app, "late-0")
            deadline = asyncio.get_running_loop().time() + 60
            while len(writes) == written and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(FLUSH_SECONDS / 10)

        asyncio.run(scenario())
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
    assert seen["writes before"] == 0
    assert seen["counted before"] == [0, 0]
    assert seen["counted after"] == [30, 30]
    assert [len(text.splitlines()) for text in seen["full writes"]] == [LINES_PER_WRITE] * 2
    assert [len(text.splitlines()) for text in writes] == [
        30,
        LINES_PER_WRITE,
        LINES_PER_WRITE,
        22,
        1,
    ]
    lines = [json.loads(line) for text in writes for line in text.splitlines()]
    expected = [f"turn-{turn}-{i}" for turn in range(3) for i in range(10)]
    expected += [f"many-{i}" for i in range(2 * LINES_PER_WRITE + 22)]
    expected += ["late-0"]
    assert [line["request_id"] for line in lines] == expected


def test_a_fast_access_line_is_the_line_the_json_formatter_writes() -> None:
    """The batch writes access lines without a LogRecord: the same keys, in the same order,
    as `JsonFormatter` gives the same access record."""
    record = logging.LogRecord("stakeout.access", logging.INFO, __file__, 1, "%s %s %s", None, None)
    record.args = ("GET", GAME_ROUTE, 200)
    record.__dict__.update(method="GET", route=GAME_ROUTE, status=200, duration_ms=1.25)
    token = log_fields.set(LogFields(request_id="r-1", scope={"path_params": {"game_id": "g1"}}))
    try:
        formatted = json.loads(JsonFormatter().format(record))
    finally:
        log_fields.reset(token)
    fast = AccessLine(
        time=formatted["time"],
        level="INFO",
        logger="stakeout.access",
        message=f"GET {GAME_ROUTE} 200",
        request_id="r-1",
        game_id="g1",
        method="GET",
        route=GAME_ROUTE,
        status=200,
        duration_ms=1.25,
    )
    assert list(json.loads(msgspec.json.encode(fast)).items()) == list(formatted.items())
    # An unmatched path: the same again, with the path.
    record.__dict__.update(route="unmatched", path="/nope")
    record.args = ("GET", "/nope", 404)
    record.__dict__["status"] = 404
    token = log_fields.set(LogFields(request_id="r-1"))
    try:
        with_path = json.loads(JsonFormatter().format(record))
    finally:
        log_fields.reset(token)
    line = msgspec.structs.replace(
        fast,
        time=with_path["time"],
        message="GET /nope 404",
        game_id=None,
        route="unmatched",
        path="/nope",
        status=404,
    )
    assert list(json.loads(msgspec.json.encode(line)).items()) == list(with_path.items())
    # Without a game: no game_id key at all, as the formatter leaves out what is None.
    bare = msgspec.structs.replace(fast, game_id=None)
    assert "game_id" not in json.loads(msgspec.json.encode(bare))


def test_observations_added_in_one_go_read_as_one_at_a_time() -> None:
    """`add_observations` (the batch's way into a histogram) against ``observe`` (the
    documented way), on two histograms with the same buckets: the same samples."""
    rng = random.Random(7)
    observed = Histogram("stakeout_test_one_by_one", "test", ["route"], registry=None)
    batched = Histogram("stakeout_test_one_by_one", "test", ["route"], registry=None)
    bounds = list(observed._upper_bounds)
    counts = [0.0] * len(bounds)
    total = 0.0
    for _ in range(500):
        seconds = rng.choice([0.0, 0.005, 0.01, 0.3, 2.5, 99.0, rng.expovariate(20)])
        observed.labels("/x").observe(seconds)
        counts[bisect.bisect_left(bounds, seconds)] += 1
        total += seconds
    add_observations(batched.labels("/x"), total, counts)

    def samples(histogram: Histogram) -> list[tuple[str, dict[str, str], float]]:
        return [
            (s.name, s.labels, round(s.value, 9))
            for family in histogram.collect()
            for s in family.samples
            if not s.name.endswith("_created")
        ]

    assert samples(batched) == samples(observed)
