"""The API guide's page (service/static/api-guide.html) is docs/api-guide.md as it is now,
with an anchor per heading as GitHub makes them, and nothing it would load from elsewhere."""

from __future__ import annotations

import re

from tests.api_guide_page import GUIDE, PAGE, render, slug


def test_the_page_is_the_guide_as_it_is_now() -> None:
    assert PAGE.read_text() == render(GUIDE.read_text()), (
        "service/static/api-guide.html is stale: run .venv/bin/python -m tests.api_guide_page"
    )


def test_every_heading_has_its_github_anchor_and_the_contents_link_each_section() -> None:
    page = PAGE.read_text()
    sections = re.findall(r"^## (.+)$", GUIDE.read_text(), re.M)
    assert len(sections) >= 10, sections
    for section in sections:
        anchor = slug(re.sub(r"`", "", section))
        assert f'<h2 id="{anchor}">' in page, section
        assert f'<a href="#{anchor}">' in page, section
    assert slug("Sealed steps: commit, then reveal") == "sealed-steps-commit-then-reveal"
    assert slug("Rules, health") == "rules-health"


def test_the_page_has_no_script_and_links_only_to_this_app() -> None:
    page = PAGE.read_text()
    assert "<script" not in page
    for url in re.findall(r'(?:href|src)="([^"]*)"', page):
        assert url.startswith(("/", "#")), url
        assert not url.startswith("//"), url
    assert "<table>" in page  # the guide's tables are tables, not pipes
    assert "|---|" not in page
