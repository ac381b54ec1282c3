"""HTTP API v1."""
