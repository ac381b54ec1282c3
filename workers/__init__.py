"""RQ jobs and the worker entry point. Jobs are thin: they take ids and call the service."""
