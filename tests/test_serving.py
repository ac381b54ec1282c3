"""How an API process serves: `stakeout serve`'s answers carry a date and no ``server``
header, a connection idle past a client's own idle limit is still open, and the app
(`service.app.for_serving`, used by `stakeout serve`, `run` and ``uvicorn --factory
service.app:app_factory``) keeps what start-up made out of the garbage collector's
generations, so a full collection under load walks only what requests made and young
collections come less often (checked in a fresh interpreter: freezing this test process
would keep its objects)."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from service.app import YOUNG_GC_THRESHOLD
from service.settings import API_SERVERS
from tests.processes import Processes, processes, service_env

__all__ = ["processes"]

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import gc, json
from service.app import app_factory
before = gc.get_threshold()
app_factory()
print(json.dumps({"frozen": gc.get_freeze_count(), "collected": len(gc.get_objects()),
                  "before": before, "after": gc.get_threshold()}))
"""


def test_start_up_objects_are_out_of_the_collectors_way() -> None:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}  # nothing connects
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    counts = json.loads(done.stdout.strip().splitlines()[-1])
    # The imports and the app: tens of thousands of objects, all frozen; what a full
    # collection still walks is what was made after (a handful here).
    assert counts["frozen"] > 20_000
    assert counts["collected"] < counts["frozen"] // 20
    # Young collections at most once per YOUNG_GC_THRESHOLD new objects; the older
    # generations' thresholds as CPython has them.
    assert counts["after"] == [YOUNG_GC_THRESHOLD, *counts["before"][1:]]
    assert counts["before"][0] < YOUNG_GC_THRESHOLD


def test_answers_name_no_server_software(processes: Processes, clean_redis: str) -> None:
    api = processes.api(service_env(clean_redis))
    answer = httpx.get(api.base + "/healthz", timeout=10)
    assert answer.status_code == 200
    assert "server" not in answer.headers
    assert answer.headers["date"].endswith(" GMT")  # uvicorn's own headers otherwise stay


@pytest.mark.parametrize("server", API_SERVERS)
def test_an_idle_connection_outlives_a_clients_own_idle_limit(
    processes: Processes, clean_redis: str, server: str
) -> None:
    """A connection idle past httpx's pool expiry (5 s, uvicorn's own default too) is still
    the server's to answer on, whichever server: the client, not the server, is the side
    that lets it go, so a request is never sent on a connection the server is closing."""
    api = processes.api(service_env(clean_redis, STAKEOUT_API_SERVER=server))
    pool_expiry = httpx.Limits().keepalive_expiry
    assert pool_expiry is not None
    conn = http.client.HTTPConnection(api.base.removeprefix("http://"), timeout=10)
    try:
        conn.request("GET", "/healthz")
        assert conn.getresponse().read() == b'{"status":"ok"}'
        kept = conn.sock
        # What is under test is an idle connection, so the test idles it.
        time.sleep(pool_expiry + 1)
        conn.request("GET", "/healthz")  # on the same socket: a closed one raises here
        assert conn.sock is kept
        assert conn.getresponse().read() == b'{"status":"ok"}'
    finally:
        conn.close()
