"""The web client at ``/web/``: plain ES modules and CSS from ``service/web/``, no build step.

The pages use only the public v1 API (fetch and EventSource), like any other client. Every
answer carries a Content-Security-Policy that allows this origin only, so a page can never
load anything from elsewhere (it works offline, and a test would notice a stray asset).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litestar import Request, Response, Router, get
from litestar.response import Redirect
from litestar.static_files import create_static_files_router

from service.http.strictness import check_request, problem_for_not_found

WEB_DIR = Path(__file__).resolve().parents[1] / "web"
PREFIX = "/web"

HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; "
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    # Small files that change with the server: revalidated each time (ETag/Last-Modified).
    "Cache-Control": "no-cache",
}


async def _headers(response: Response[Any]) -> Response[Any]:
    response = await problem_for_not_found(response)
    response.headers.update(HEADERS)
    return response


async def _slash_first(request: Request[Any, Any, Any]) -> Response[Any] | None:
    # The router matches ``/web`` as ``/web/``, but a page served there resolves its
    # relative assets (``app.css``) against ``/``: every one a 404. So it is sent on.
    # (Litestar strips the slash from ``path``; ``raw_path`` is as sent.)
    if request.scope.get("raw_path", b"").split(b"?")[0] == PREFIX.encode():
        return Redirect(PREFIX + "/", status_code=308)
    return await check_request(request)  # the app's own hook, which this one replaces


def web_router() -> Router:
    """``/web/`` serves ``index.html`` (the lobby); other pages by name."""
    return create_static_files_router(
        path=PREFIX,
        directories=[WEB_DIR],
        html_mode=True,
        name="web",
        before_request=_slash_first,
        after_request=_headers,
        include_in_schema=False,
    )


@get("/", include_in_schema=False, sync_to_thread=False)
def home() -> Redirect:
    """The server's root is the web client's lobby (the README's "everything, on ...");
    temporary (307), so a browser does not keep it should the root serve something later."""
    return Redirect(PREFIX + "/", status_code=307)
