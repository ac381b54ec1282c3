"""`/metrics` on its own port (STAKEOUT_METRICS_PORT): served there, refused (404) on the
API port that the ingress routes to. A real API process."""

from __future__ import annotations

import httpx

from tests.helpers import wait_for
from tests.processes import Processes, free_port, own_redis, processes, service_env

__all__ = ["own_redis", "processes"]


def test_metrics_move_to_their_own_port(processes: Processes, own_redis: str) -> None:
    port = free_port()
    api = processes.api(service_env(own_redis, STAKEOUT_METRICS_PORT=str(port)))
    assert httpx.get(api.base + "/v1/rules").status_code == 200
    on_api = httpx.get(api.base + "/metrics")
    assert on_api.status_code == 404, on_api.text
    assert on_api.headers["content-type"].startswith("application/problem+json")
    rules = 'stakeout_http_requests_total{method="GET",route="/v1/rules",status="200"}'

    def scraped_with_rules() -> str:
        scraped = httpx.get(f"http://127.0.0.1:{port}/metrics")
        assert scraped.status_code == 200
        return scraped.text if rules in scraped.text else ""

    # The API process adds its requests to its metrics within FLUSH_SECONDS.
    text = wait_for(scraped_with_rules, timeout=10)
    assert "stakeout_queue_depth" in text  # the Redis-read families too
