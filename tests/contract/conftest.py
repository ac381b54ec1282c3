"""Contract tests run against a server of their own, on a store of their own.

The session `server_url` of tests/conftest.py shares its database with tests that empty it
before they run (`clean_redis`); its warm cache then finds the store behind it and
`/readyz` rightly answers 503 while it reloads. Nothing empties this server's store, so what
schemathesis sees of it is the service's own behaviour.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.ops.embedded import EmbeddedRedis
from tests.conftest import serve


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    external = os.environ.get("REDIS_URL")
    if external:
        # Databases 1 and up belong to the test processes (tests/conftest.py); these sit
        # above them.
        worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
        yield from serve(f"{external.rstrip('/').rsplit('/', 1)[0]}/{9 + worker}")
        return
    store = EmbeddedRedis(Path(tmp_path_factory.mktemp("contract-valkey")))
    url = store.start()
    try:
        yield from serve(url)
    finally:
        store.stop()
