"""A refused act is explained in words from the problem response, and changes nothing."""

from __future__ import annotations

import httpx
from playwright.sync_api import Page, Route, expect

from tests.browser.stack import Stack


def test_a_stale_click_is_refused_in_words(page: Page, stack: Stack) -> None:
    created = httpx.post(
        f"{stack.base}/v1/games",
        json={"game": "fbi", "seats": [{"type": "human"}, {"type": "human"}]},
        headers={"Authorization": f"Bearer {stack.api_key}"},
    ).json()
    game_id = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    opening = httpx.get(f"{stack.base}/v1/games/{game_id}").json()
    first = opening["awaiting"][0]["seat"]
    page.add_init_script(
        f"localStorage.setItem('stakeout.seats.{game_id}', "
        f"JSON.stringify({{{first}: {tokens[first]!r}}}))"
    )
    # This page's live feed stalls (the requests hang), so it will not hear of the move below.
    held: list[Route] = []

    def stall(route: Route) -> None:  # (a bound method has no attributes Playwright sets)
        held.append(route)

    page.route("**/stream?*", stall)
    page.route("**/*after_version=*", stall)
    page.goto(f"/web/table.html#{game_id}/{first}")
    expect(page.locator("body")).to_have_attribute("data-awaiting-me", "move")

    # The same seat moves from elsewhere (another device): the page's table is now stale.
    headers = {"Authorization": f"Bearer {tokens[first]}"}
    mine = httpx.get(f"{stack.base}/v1/games/{game_id}", headers=headers).json()
    moved = httpx.post(
        f"{stack.base}/v1/games/{game_id}/moves", json=mine["legal"][0], headers=headers
    )
    assert moved.status_code == 200, moved.text
    version = moved.json()["version"]

    page.locator("#table [data-move]:enabled").first.click()
    error = page.locator("#error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("It is not this seat's turn")  # the problem's title
    after = httpx.get(f"{stack.base}/v1/games/{game_id}").json()
    assert after["version"] == version  # the refused click changed nothing
