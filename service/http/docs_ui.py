"""The docs UI at ``/schema/``, served whole by the app: no request leaves the machine.

Swagger UI's files come from the ``swagger-ui-py`` package (pinned in pyproject.toml; it
ships Swagger UI's distribution with its Apache-2.0 licence, served at
``/schema/assets/LICENSE``); the page and the script that starts it are ours. Only the
files listed in `ASSETS` are served, read once.

The API guide (docs/api-guide.md) is served at ``/schema/guide``, linked from the page: a
file written ahead of time (``service/static/api-guide.html``, by tests/api_guide_page.py),
so the server renders no Markdown.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path
from typing import Annotated, Any

from litestar import Request, Response, Router, get
from litestar.exceptions import NotFoundException
from litestar.openapi.plugins import OpenAPIRenderPlugin
from litestar.params import PathParameter

ASSET_PREFIX = "/schema/assets/"
_OURS = Path(__file__).resolve().parents[1] / "static"

# name → (media type, where it comes from: "swagger-ui" package or "ours")
ASSETS: dict[str, tuple[str, str]] = {
    "swagger-ui-bundle.js": ("text/javascript", "swagger-ui"),
    "swagger-ui.css": ("text/css", "swagger-ui"),
    "favicon-32x32.png": ("image/png", "swagger-ui"),
    "LICENSE": ("text/plain", "swagger-ui"),
    "stakeout-docs.js": ("text/javascript", "ours"),
    "api-guide.css": ("text/css", "ours"),
}
GUIDE_PAGE = "api-guide.html"
# The guide has no script and loads nothing but its stylesheet and icon from this app.
GUIDE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; "
        "frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}

PAGE = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>stakeout API v1</title>
<link rel="icon" type="image/png" href="{ASSET_PREFIX}favicon-32x32.png">
<link rel="stylesheet" href="{ASSET_PREFIX}swagger-ui.css">
<link rel="stylesheet" href="{ASSET_PREFIX}api-guide.css">
</head>
<body>
<p class="stakeout-guide"><a href="/schema/guide">The API guide</a>: what the contract
cannot say (credentials, retries, long polls, live feeds, sealed steps, webhooks, problem
types, limits).</p>
<div id="swagger-ui"></div>
<script src="{ASSET_PREFIX}swagger-ui-bundle.js"></script>
<script src="{ASSET_PREFIX}stakeout-docs.js"></script>
</body>
</html>
"""


def _swagger_ui_dir() -> Path:
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the swagger-ui-py package is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "static"


@cache
def asset(name: str) -> bytes:
    _, source = ASSETS[name]
    folder = _OURS if source == "ours" else _swagger_ui_dir()
    return (folder / name).read_bytes()


@get("/assets/{name:str}", include_in_schema=False, sync_to_thread=False)
def serve_asset(name: Annotated[str, PathParameter()]) -> Response[bytes]:
    if name not in ASSETS:
        raise NotFoundException(f"no asset {name!r}")
    media_type, _ = ASSETS[name]
    return Response(
        asset(name),
        media_type=media_type,
        headers={"Cache-Control": "public, max-age=86400", "X-Content-Type-Options": "nosniff"},
    )


@cache
def guide_page() -> bytes:
    return (_OURS / GUIDE_PAGE).read_bytes()


@get("/guide", include_in_schema=False, sync_to_thread=False)
def serve_guide() -> Response[bytes]:
    return Response(guide_page(), media_type="text/html", headers=GUIDE_HEADERS)


class OfflineSwaggerPlugin(OpenAPIRenderPlugin):
    """Swagger UI at ``/schema/``, reading ``/schema/openapi.json``, with local assets."""

    def __init__(self, path: str = "/") -> None:
        super().__init__(path=path, favicon="", style="")

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return PAGE.encode()

    def receive_router(self, router: Router) -> None:
        router.register(serve_asset)
        router.register(serve_guide)
