"""The table page: a seat resigns (asked twice) and the bots finish the game, whose header
then says the game is over, not "live"; a seat's link opened in a browser without its token
watches, and says why."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Page, expect

from tests.browser.conftest import assert_fits, screenshot
from tests.browser.stack import Stack


def _game_with_a_person(
    stack: Stack, game: str, options: dict[str, Any] | None = None, friend: bool = False
) -> tuple[str, str]:
    """A game of seat 0 (a person) against a random bot (and, with ``friend``, another
    person at seat 2, whose token the test keeps); its id and seat 0's token."""
    seats = [{"type": "human"}, {"type": "bot", "level": "random"}]
    seats += [{"type": "human"}] if friend else []
    created: dict[str, Any] = httpx.post(
        f"{stack.base}/v1/games",
        json={"game": game, "seats": seats, "options": options or {}},
        headers={"Authorization": f"Bearer {stack.api_key}"},
    ).json()
    if friend:
        FRIENDS[str(created["id"])] = str(created["seats"][2]["token"])
    return str(created["id"]), str(created["seats"][0]["token"])


FRIENDS: dict[str, str] = {}


def _hold(page: Page, game_id: str, token: str) -> None:
    page.add_init_script(
        f"localStorage.setItem('stakeout.seats.{game_id}', JSON.stringify({{0: {token!r}}}))"
    )


def test_a_seat_resigns_after_saying_yes_and_the_bots_play_on_to_the_end(
    page: Page, stack: Stack
) -> None:
    # A friend at seat 2 who does not play: once seat 0 resigns, the game waits for the
    # friend's turn, so the page's log still shows the resignation when it is looked at.
    game_id, token = _game_with_a_person(stack, "fbi", friend=True)
    _hold(page, game_id, token)
    page.goto(f"/web/table.html#{game_id}/0")
    expect(page.locator("#feed-state")).to_have_attribute("data-state", "live")
    page.get_by_role("button", name="Resign…").click()
    expect(page.locator("#links")).to_contain_text("A bot plays it for the rest of the game")
    screenshot(page, "table-resign-asked")
    page.get_by_role("button", name="Keep playing").click()
    seats = httpx.get(f"{stack.base}/v1/games/{game_id}").json()["seats"]
    assert not seats[0]["resigned"]
    page.get_by_role("button", name="Resign…").click()
    page.get_by_role("button", name="Resign the seat").click()
    expect(page.locator("#status")).to_contain_text("You resigned: a bot plays your seat")
    assert httpx.get(f"{stack.base}/v1/games/{game_id}").json()["seats"][0]["resigned"]
    expect(page.get_by_role("button", name="Resign…")).to_have_count(0)
    expect(page.locator("#log-list")).to_contain_text("You resigned; a random bot plays your seat")
    # The friend resigns too: the bots play every seat to the end; the page follows, and
    # stops saying "live".
    friend = httpx.post(
        f"{stack.base}/v1/games/{game_id}/resign",
        headers={"Authorization": f"Bearer {FRIENDS[game_id]}"},
    )
    assert friend.status_code == 200, friend.text
    expect(page.locator("body")).to_have_attribute("data-status", "finished", timeout=120_000)
    expect(page.locator("#feed-state")).to_have_text("game over")
    assert_fits(page)
    screenshot(page, "table-resigned-finished")


def test_a_finished_game_opened_later_is_not_live(page: Page, stack: Stack) -> None:
    game_id, token = _game_with_a_person(stack, "bonnie_clyde", {"target": 10})
    resigned = httpx.post(
        f"{stack.base}/v1/games/{game_id}/resign",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert resigned.status_code == 200, resigned.text
    page.goto(f"/web/table.html#{game_id}/watch")
    expect(page.locator("body")).to_have_attribute("data-status", "finished", timeout=120_000)
    expect(page.locator("#feed-state")).to_have_attribute("data-state", "ended")
    expect(page.locator("#seats")).not_to_contain_text("pts")


def test_a_seat_link_in_another_browser_watches_and_says_why(
    guest_page: Page, stack: Stack
) -> None:
    game_id, _ = _game_with_a_person(stack, "feds")
    guest_page.goto(f"/web/table.html#{game_id}/0")
    notice = guest_page.locator("#notice")
    expect(notice).to_contain_text("You are watching: this browser holds no token for seat 0.")
    expect(notice).to_contain_text("the table's address alone only lets you watch")
    expect(guest_page.locator("#title")).to_contain_text("watching")
    assert guest_page.locator("#table [data-move]").count() == 0
    assert_fits(guest_page)
    screenshot(guest_page, "table-seat-link-elsewhere")
    # Asked to watch, it just watches.
    watching = guest_page.context.new_page()
    watching.goto(f"/web/table.html#{game_id}/watch")
    expect(watching.locator("#title")).to_contain_text("watching")
    expect(watching.locator("body")).to_have_attribute("data-status", "active")
    expect(watching.locator("#notice")).to_be_hidden()
    watching.close()
