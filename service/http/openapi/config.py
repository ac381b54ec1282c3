"""How the app serves the contract: its title, description and tags, and the plugin that
serves the finished document at /schema/openapi.json."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.openapi.spec import Contact, License, Tag

from service.http.docs_ui import OfflineSwaggerPlugin
from service.http.openapi.document import finish

API_VERSION = "1.0.0"

DESCRIPTION = """\
stakeout runs hidden-information card games (FBI, The Feds, Bonnie and Clyde) for
third-party clients. Create a game with an API key, then play each human seat with the seat
token returned at creation. `GET /v1/games/{game_id}` tells a seat what it must do
(`awaiting`) and every move it may make (`legal`); post one of them as is.

Simultaneous secret choices are sealed: when your `awaiting` action is `commit`, post
`hex(SHA-256("sealed-v1|{game_id}|{step}|{seat}|{move}|{salt}"))` with `move` as JSON with
sorted keys and no spaces and `salt` 16+ random bytes in hex; once every seat has
committed, reveal the move and salt.

Every error is `application/problem+json` with a stable `type` (`urn:stakeout:problem:*`).
"""

TAGS = [
    Tag(name="games", description="Create games, read views and event logs, make moves."),
    Tag(name="webhooks", description="Signed notifications to a backend, with delivery logs."),
    Tag(name="rules", description="The games this server runs, with their rules data."),
    Tag(name="health", description="Liveness and readiness probes."),
    Tag(
        name="lobby",
        description="Open seats and invites, leaving, filling with bots, rematches, stream "
        "tickets and the public lobby.",
    ),
    Tag(name="feeds", description="One live feed of all an API key's games."),
    Tag(
        name="matchmaking",
        description="Tickets that find a player a game (with people of its strength, or "
        "bots after a wait), matched on the workers: no connection needs to stay open.",
    ),
    Tag(
        name="players",
        description="An API key's players: ratings per game kind, their games, leaderboards.",
    ),
]


class FinalJsonRenderPlugin(JsonRenderPlugin):
    """Serves the finished document at /schema/openapi.json."""

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return msgspec.json.encode(finish(openapi_schema))


def openapi_config() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="stakeout",
        version=API_VERSION,
        description=DESCRIPTION,
        contact=Contact(name="stakeout maintainers"),
        license=License(name="Proprietary", identifier="LicenseRef-Proprietary"),
        tags=TAGS,
        path="/schema",
        # The docs UI's files are served by the app itself (service/http/docs_ui.py).
        render_plugins=[FinalJsonRenderPlugin(path="/openapi.json"), OfflineSwaggerPlugin()],
        use_handler_docstrings=False,
    )
