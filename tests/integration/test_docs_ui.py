"""The docs UI works offline: the page and every file it references come from the app
itself, and nothing it loads points anywhere else."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any


class _References(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in {"src", "href"} and value is not None:
                self.urls.append(value)


def test_the_docs_page_and_every_asset_it_references_come_from_the_app(client: Any) -> None:
    page = client.get("/schema/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    parser = _References()
    parser.feed(page.text)
    assert len(parser.urls) >= 4, parser.urls
    for url in parser.urls:
        # Local paths only: no scheme, no host, no protocol-relative //host.
        assert url.startswith("/"), url
        assert not url.startswith("//"), url
        served = client.get(url)
        assert served.status_code == 200, url
        assert served.content, url
    kinds = {client.get(url).headers["content-type"].split(";")[0] for url in parser.urls}
    assert {"text/javascript", "text/css", "image/png"} <= kinds
    # The script that starts the UI loads the document from this app and turns off the
    # online validator (Swagger UI's default would send the document away).
    starter = next(url for url in parser.urls if url.endswith("stakeout-docs.js"))
    script = client.get(starter).text
    assert 'url: "/schema/openapi.json"' in script
    assert "validatorUrl: null" in script
    assert not re.search(r"https?://", script)
    # The stylesheet's own references are inline data, not downloads.
    css = next(url for url in parser.urls if url.endswith(".css"))
    for reference in re.findall(r"url\(([^)]*)\)", client.get(css).text):
        assert reference.strip("'\"").startswith("data:"), reference
    assert client.get("/schema/openapi.json").json()["openapi"].startswith("3.1")


def test_swagger_uis_licence_is_served_beside_it_and_unknown_assets_are_problems(
    client: Any,
) -> None:
    licence = client.get("/schema/assets/LICENSE")
    assert licence.status_code == 200
    assert "Apache License" in licence.text
    missing = client.get("/schema/assets/secrets.txt")
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("application/problem+json")
    traversal = client.get("/schema/assets/..%2Fdocs_ui.py")
    assert traversal.status_code == 404


def test_the_api_guide_is_served_and_linked_from_the_docs_page(client: Any) -> None:
    docs = client.get("/schema/")
    assert 'href="/schema/guide"' in docs.text
    guide = client.get("/schema/guide")
    assert guide.status_code == 200
    assert guide.headers["content-type"].startswith("text/html")
    assert "script-src" not in guide.headers["content-security-policy"]
    assert "default-src 'none'" in guide.headers["content-security-policy"]
    assert "<h1" in guide.text
    assert "The API guide" in guide.text
    assert 'id="limits-and-pagination"' in guide.text
    parser = _References()
    parser.feed(guide.text)
    local = [url for url in parser.urls if not url.startswith("#")]
    assert "/schema/assets/api-guide.css" in local
    for url in local:
        assert url.startswith("/"), url
        assert not url.startswith("//"), url
        if url.startswith("/schema/"):
            assert client.get(url).status_code == 200, url
