"""The API docs page (/schema/): its "Try it out" offers no per-operation Authorization field
(Swagger UI drops what is typed there: OpenAPI 3 ignores a header parameter of that name),
and the key given to "Authorize" goes with the request."""

from __future__ import annotations

from playwright.sync_api import Page, expect

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
