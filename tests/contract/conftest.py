"""Contract tests use the session `server_url` fixture from tests/conftest.py."""
