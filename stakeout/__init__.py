"""The ``stakeout`` command, the entry point of every process: it serves the app, starts a
worker, or runs everything at once under its supervisor. It stands above both `service`
and `workers`, so neither imports it and no import loop joins the root packages."""
