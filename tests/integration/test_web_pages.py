"""The web client's files, served by the app at /web/ (service/http/web_pages.py)."""

from __future__ import annotations

from litestar import Litestar
from litestar.testing import TestClient


def test_the_pages_are_served_with_a_policy_that_allows_this_origin_only(
    client: TestClient[Litestar],
) -> None:
    for path, media in [
        ("/web/", "text/html"),
        ("/web/table.html", "text/html"),
        ("/web/join.html", "text/html"),
        ("/web/replay.html", "text/html"),
        ("/web/table.js", "javascript"),
        ("/web/app.css", "text/css"),
    ]:
        answer = client.get(path)
        assert answer.status_code == 200, path
        assert media in answer.headers["content-type"], path
        assert "default-src 'self'" in answer.headers["content-security-policy"]
        assert answer.headers["x-content-type-options"] == "nosniff"
    assert "lobby.js" in client.get("/web/").text


def test_an_unknown_file_is_a_problem_and_nothing_outside_the_folder_is_served(
    client: TestClient[Litestar],
) -> None:
    for path in ["/web/nope.js", "/web/../app.py", "/web/%2e%2e/app.py", "/web/games/nope.js"]:
        answer = client.get(path)
        assert answer.status_code == 404, path
        assert answer.headers["content-type"].startswith("application/problem+json"), path


def test_the_root_and_the_folder_without_its_slash_redirect_to_the_lobby(
    client: TestClient[Litestar],
) -> None:
    # /web served the lobby's HTML with every relative asset a 404; / was a JSON 404.
    for path, status in [("/", 307), ("/web", 308)]:
        answer = client.get(path, follow_redirects=False)
        assert answer.status_code == status, path
        assert answer.headers["location"] == "/web/", path
    followed = client.get("/web")
    assert followed.status_code == 200
    assert "lobby.js" in followed.text
    assert client.get("/web/app.css").status_code == 200
