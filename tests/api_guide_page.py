"""``service/static/api-guide.html``: docs/api-guide.md as the page the app serves at
``/schema/guide`` (linked from the docs page at ``/schema/``).

The page is written here, ahead of time, with markdown-it-py (a test tool): the server only
serves the file (`service/http/docs_ui.py`), renders nothing and needs no Markdown package.
Its one stylesheet is the app's own (``/schema/assets/api-guide.css``); it has no script
and loads nothing from elsewhere. Every heading gets the anchor GitHub gives it, so a link
to ``docs/api-guide.md#limits-and-pagination`` has its twin at
``/schema/guide#limits-and-pagination``, and the title is followed by a table of contents.

`tests.test_api_guide_page` fails while the page and the guide disagree; after changing
docs/api-guide.md, write the page again: ``.venv/bin/python -m tests.api_guide_page``.
"""

from __future__ import annotations

import html
import itertools
import re
from collections.abc import Sequence
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "api-guide.md"
PAGE = ROOT / "service" / "static" / "api-guide.html"


def slug(text: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def _headings(tokens: Sequence[Token]) -> list[tuple[int, str, str]]:
    """Each heading's level, text and anchor (a repeated anchor gets -1, -2, as GitHub's)."""
    seen: dict[str, int] = {}
    found = []
    for opening, inline in itertools.pairwise(tokens):
        if opening.type != "heading_open":
            continue
        text = "".join(child.content for child in inline.children or ())
        anchor = slug(text)
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        anchor = f"{anchor}-{count}" if count else anchor
        opening.attrSet("id", anchor)
        found.append((int(opening.tag[1]), text, anchor))
    return found


def render(markdown: str) -> str:
    """The whole page for ``markdown`` (the guide)."""
    parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = parser.parse(markdown)
    headings = _headings(tokens)
    body = parser.renderer.render(tokens, parser.options, {})
    title = next(text for level, text, _ in headings if level == 1)
    contents = "\n".join(
        f'<li><a href="#{anchor}">{html.escape(text)}</a></li>'
        for level, text, anchor in headings
        if level == 2
    )
    # The contents right under the title.
    heading, rest = _wide_tables(body).split("</h1>\n", 1)
    return PAGE_TEMPLATE.format(
        title=html.escape(title), heading=heading + "</h1>", contents=contents, body=rest
    )


def _wide_tables(body: str) -> str:
    """Tables in a box of their own that scrolls sideways on a narrow screen (the page
    itself never does)."""
    return body.replace("<table>", '<div class="table"><table>').replace(
        "</table>", "</table></div>"
    )


PAGE_TEMPLATE = """<!DOCTYPE html>
<!-- Written by tests/api_guide_page.py from docs/api-guide.md: edit that, not this. -->
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · stakeout</title>
<link rel="icon" type="image/png" href="/schema/assets/favicon-32x32.png">
<link rel="stylesheet" href="/schema/assets/api-guide.css">
</head>
<body class="guide-page">
<header class="guide-header">
<a href="/schema/">The contract (/schema/)</a>
<a href="/web/">The web table (/web/)</a>
</header>
<main>
{heading}
<nav aria-label="Contents" class="contents">
<h2>Contents</h2>
<ol>
{contents}
</ol>
</nav>
{body}</main>
</body>
</html>
"""


def main() -> None:
    PAGE.write_text(render(GUIDE.read_text()))
    print(f"wrote {PAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
