"""The web client loads from the app itself and talks to the API."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.conftest import screenshot


def test_the_lobby_lists_every_game_and_loads_nothing_from_elsewhere(page: Page) -> None:
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto("/web/")
    expect(page.get_by_label("Game", exact=True)).to_contain_text("Bonnie and Clyde")
    expect(page.get_by_role("heading", name="Your games")).to_be_visible()
    screenshot(page, "lobby")
    base = page.url.split("/web/")[0]
    assert requested
    assert all(url.startswith((base, "data:")) for url in requested), requested
