"""`/metrics` on its own port (``STAKEOUT_METRICS_PORT``), away from the public API.

The port is for the cluster's Prometheus only: the ingress routes to the API port, where
`/metrics` then answers 404, and a NetworkPolicy admits the scrapers to the metrics port.
In `stakeout run` (several API processes, prometheus_client's multiprocess mode) the
supervising process serves the port and sums the API processes' samples; in `stakeout serve`
(one process per pod) the API process serves it from a thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from wsgiref.simple_server import WSGIServer

from prometheus_client import start_http_server

from service.follow_ups.jobs import QUEUES
from service.settings import Settings
from service.store.clients import queue_url
from service.telemetry.metrics import QueueCollector, exposition


@dataclass
class MetricsServer:
    server: WSGIServer
    collector: QueueCollector

    def shutdown(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.collector.close()


def serve_metrics(settings: Settings, port: int) -> MetricsServer:
    """Serve the scrape on ``port`` (same host as the API) from a daemon thread."""
    collector = QueueCollector(
        queue_url(settings), QUEUES, settings.redis_url, settings.redis_cluster
    )
    server, _thread = start_http_server(port, addr=settings.host, registry=exposition(collector))
    return MetricsServer(server, collector)
