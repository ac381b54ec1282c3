"""A worker asked to stop while RQ was still starting it stops (it used to take jobs until it
was killed: the signal reached the process's own handler, which RQ then replaced)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import redis

# The worker as workers/main.py builds it, with the stop already asked for: what a SIGTERM
# between the process's handler and RQ's leaves behind.
SCRIPT = textwrap.dedent(
    """
    import sys, threading
    import redis
    from workers.main import _worker

    connection = redis.Redis.from_url(sys.argv[1])
    worker = _worker(connection, ("bots", "scoring"), "stop-test-1")
    worker.stopping = threading.Event()
    worker.stopping.set()
    worker.work(burst=False, with_scheduler=True, logging_level="WARNING")
    print("stopped", worker._shutdown_requested_date is not None)
    """
)


def test_a_stop_asked_for_while_rq_starts_the_worker_stops_it(clean_redis: str) -> None:
    # Bounded only so that a hang fails the test instead of hanging the suite.
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, clean_redis], capture_output=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout.decode().split() == ["stopped", "True"]
    client = redis.Redis.from_url(clean_redis)
    try:  # it said it was gone: in no list of live workers (another test's worker may have
        # reaped its record meanwhile, so its death date is not asked for)
        assert b"rq:worker:stop-test-1" not in client.smembers("rq:workers")
    finally:
        client.close()
