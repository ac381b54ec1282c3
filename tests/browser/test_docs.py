"""The API docs page (/schema/): its "Try it out" offers no per-operation Authorization field
(Swagger UI drops what is typed there: OpenAPI 3 ignores a header parameter of that name),
and the key given to "Authorize" goes with the request. The API guide it links to
(/schema/guide) reads at 360 and 1280 px."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.conftest import LAPTOP, PHONE, assert_fits
from tests.browser.stack import Stack


def test_try_it_out_has_no_authorization_field_and_authorize_works(
    page: Page, stack: Stack
) -> None:
    page.goto("/schema/#/games/listMyGames")
    operation = page.locator("#operation-games-listMyGames, #operations-games-listMyGames")
    operation.get_by_role("button", name="Try it out").click()
    expect(operation.locator('tr[data-param-name="limit"]')).to_be_visible()
    expect(operation.locator('tr[data-param-name="Authorization"]')).to_have_count(0)
    expect(page.locator('tr[data-param-name="Authorization"]')).to_have_count(0)

    page.locator(".auth-wrapper").get_by_role("button", name="Authorize").click()
    dialog = page.locator(".modal-ux")
    dialog.locator("input").first.fill(stack.api_key)
    dialog.get_by_role("button", name="Apply credentials").first.click()
    dialog.get_by_role("button", name="Close").first.click()
    operation.get_by_role("button", name="Execute").click()
    status = operation.locator(".live-responses-table tbody .response-col_status").first
    expect(status).to_have_text("200")


def _views(page: Page, folder: Path, name: str) -> None:
    """What a reader sees, at 360 and at 1280 px (the viewport: the page is long)."""
    for size in (PHONE, LAPTOP):
        page.set_viewport_size(size)
        page.wait_for_timeout(150)
        page.screenshot(path=str(folder / f"{name}-{size['width']}.png"))


def test_the_api_guide_opens_from_the_docs_page_and_reads_at_both_widths(
    page: Page, screenshots_folder: Path
) -> None:
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto("/schema/")
    page.get_by_role("link", name="The API guide").click()
    expect(page).to_have_url(re.compile(r"/schema/guide$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("The API guide (v1)")
    contents = page.get_by_role("navigation", name="Contents")
    contents.get_by_role("link", name="Limits and pagination").click()
    expect(page).to_have_url(re.compile(r"#limits-and-pagination$"))
    expect(page.locator("#limits-and-pagination")).to_be_in_viewport()
    # Styled by its own sheet (not the browser's default serif), tables as tables.
    family = page.evaluate("getComputedStyle(document.body).fontFamily")
    assert "system-ui" in family, family
    expect(page.locator("main table").first).to_be_visible()
    assert_fits(page)  # long tables and code scroll in their own boxes, never the page
    page.goto("/schema/guide")
    _views(page, screenshots_folder, "api-guide")
    page.goto("/schema/guide#credentials")
    _views(page, screenshots_folder, "api-guide-credentials")
    base = page.url.split("/schema/")[0]
    assert all(url.startswith(base) for url in requests), requests
