"""Fixtures for the cluster tests (shared process helpers live in tests/processes.py)."""

from tests.processes import processes

__all__ = ["processes"]
