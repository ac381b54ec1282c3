"""A page that cannot load what it shows says so (issue #39, item 8): a card with what
failed and why in words, no "Not done:" (nothing was asked of the server to do), none of
the page's empty sections, and a link back to the lobby."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import assert_fits, screenshot
from tests.browser.stack import Stack

NOBODY = "0123456789abcdef01234567"  # a well-formed game id no game has

# page address -> (the card's heading, what its reason says)
FAILURES = {
    f"table.html#{NOBODY}": ("This table cannot be shown", f"There is no game {NOBODY}"),
    "table.html#not-a-game": ("This table cannot be shown", "This address names no game"),
    f"replay.html#{NOBODY}": ("This replay cannot be shown", f"There is no game {NOBODY}"),
    "join.html#abc": ("This invite cannot be used", "incomplete or mistyped"),
    "rules.html#chess": ("These rules cannot be shown", "no game called chess"),
}


@pytest.mark.parametrize("address", sorted(FAILURES))
def test_a_page_that_cannot_load_says_why_and_leads_back(
    page: Page, stack: Stack, address: str
) -> None:
    heading, reason = FAILURES[address]
    page.goto(f"/web/{address}")
    card = page.locator("[data-failed]")
    expect(card.get_by_role("heading", name=heading)).to_be_visible()
    expect(card.locator("#error")).to_contain_text(reason)
    expect(page.locator("main")).not_to_contain_text("Not done")
    expect(page.locator("main > *")).to_have_count(1)  # the card alone: no empty sections
    expect(page.locator("#feed-state")).to_be_hidden()  # the table's: no feed to tell of
    assert_fits(page)
    screenshot(page, "failed-" + address.replace(".html#", "-").replace("#", "-"))
    card.get_by_role("link", name="Back to the lobby").click()
    expect(page).to_have_url(f"{stack.base}/web/")
