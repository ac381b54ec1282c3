"""The HTTP service: Litestar app, event store on Redis, auth, problem responses."""
