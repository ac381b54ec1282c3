"""The web client loads from the app itself and talks to the API."""

from __future__ import annotations

import httpx
from playwright.sync_api import Page, expect

from tests.browser.clicking import create_in_lobby
from tests.browser.conftest import screenshot
from tests.browser.stack import Stack


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


def test_the_lobby_follows_the_keys_games_live(page: Page, stack: Stack) -> None:
    game_id = create_in_lobby(page, "fbi", ["human", "open"])
    row = page.locator(f'#my-games [data-game="{game_id}"]')
    expect(row).to_contain_text("waiting")
    link = page.locator('[data-invite="1"]').input_value()
    code = link.split("#", 1)[1]
    # Someone takes the open seat (a program, here): the game starts, the list says so.
    claimed = httpx.post(f"{stack.base}/v1/invites/{code}", json={"name": "Cy"})
    assert claimed.status_code == 201, claimed.text
    expect(row).to_contain_text("active")
    expect(row).not_to_contain_text("waiting")
