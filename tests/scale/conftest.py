"""Fixtures for the scale-out test (shared process helpers live in tests/processes.py)."""

from tests.processes import own_redis, processes

__all__ = ["own_redis", "processes"]
