"""A finished game replayed in the page to its end, verified there (the badge is green), and
a tampered replay shown red."""

from __future__ import annotations

import time

import httpx
from playwright.sync_api import Page, Route, expect

from tests.browser.conftest import screenshot
from tests.browser.stack import Stack


def _finished_bot_game(stack: Stack, game: str, options: dict[str, object]) -> str:
    """A game the bots play out by themselves on the worker."""
    key = {"Authorization": f"Bearer {stack.api_key}"}
    seats = [{"type": "bot", "level": "random"}] * 2
    created = httpx.post(
        f"{stack.base}/v1/games",
        json={"game": game, "seats": seats, "options": options},
        headers=key,
    )
    assert created.status_code == 201, created.text
    game_id = str(created.json()["id"])
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        answer = httpx.get(f"{stack.base}/v1/games/{game_id}/replay")
        if answer.status_code == 200:
            return game_id
        time.sleep(0.3)
    raise AssertionError("the bots did not finish the game")


def test_a_finished_game_replays_to_the_end_verified(page: Page, stack: Stack) -> None:
    game_id = _finished_bot_game(stack, "bonnie_clyde", {"target": 10})
    page.goto(f"/web/replay.html#{game_id}")
    expect(page.locator("#badge")).to_have_attribute("data-verified", "true")
    expect(page.locator("#badge")).to_have_class("badge ok")
    expect(page.locator("#checks")).to_contain_text("seed hashes to the commitment")
    expect(page.locator("#position")).to_contain_text("Event 1 of")
    for _ in range(8):
        page.get_by_role("button", name="Next event").click()
    expect(page.locator("#position")).to_contain_text("Event 9 of")
    expect(page.locator("body")).to_have_attribute("data-at", "9")
    expect(page.locator("#event-now")).not_to_be_empty()
    screenshot(page, "bonnie_clyde-replay-step9")
    page.get_by_role("button", name="Last event").click()
    total = page.locator("#slider").get_attribute("max")
    expect(page.locator("body")).to_have_attribute("data-at", str(total))
    expect(page.get_by_role("button", name="Next event")).to_be_disabled()
    page.keyboard.press("ArrowLeft")
    expect(page.locator("body")).to_have_attribute("data-at", str(int(total or 0) - 1))
    screenshot(page, "bonnie_clyde-replay-end")


def test_a_tampered_replay_is_shown_red(page: Page, stack: Stack) -> None:
    game_id = _finished_bot_game(stack, "fbi", {})

    def tamper(route: Route) -> None:
        answer = route.fetch()
        replay = answer.json()
        reveal = next(r for r in replay["events"] if r["event"]["type"] == "seal.revealed")
        reveal["event"]["salt"] = "00" * 16
        route.fulfill(response=answer, json=replay)

    page.route(f"**/v1/games/{game_id}/replay", tamper)
    page.goto(f"/web/replay.html#{game_id}")
    expect(page.locator("#badge")).to_have_attribute("data-verified", "false")
    expect(page.locator("#checks")).to_contain_text("does not match its commitment")
