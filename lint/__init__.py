"""The project's own lint checks, run by `make lint`."""
