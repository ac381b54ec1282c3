"""The invite page when the seat cannot be taken: taken before the page opened, taken while
it was open, or a code cut short. It says so once, in words, with the way to watch."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Page, expect

from tests.browser.conftest import assert_fits, screenshot
from tests.browser.stack import Stack


def _invited_game(stack: Stack) -> tuple[str, str]:
    """An FBI game with an open seat 1; its id and the seat's invite code."""
    created: dict[str, Any] = httpx.post(
        f"{stack.base}/v1/games",
        json={"game": "fbi", "seats": [{"type": "human"}, {"type": "open"}]},
        headers={"Authorization": f"Bearer {stack.api_key}"},
    ).json()
    code = next(s["invite"]["code"] for s in created["seats"] if s.get("invite"))
    return str(created["id"]), str(code)


def _claim(stack: Stack, code: str) -> None:
    claimed = httpx.post(f"{stack.base}/v1/invites/{code}", json={"name": "Cy"})
    assert claimed.status_code == 201, claimed.text


def test_a_seat_taken_already_offers_to_watch_not_to_take_it(
    guest_page: Page, stack: Stack
) -> None:
    game_id, code = _invited_game(stack)
    _claim(stack, code)
    guest_page.goto(f"/web/join.html#{code}")
    taken = guest_page.locator("#taken")
    expect(taken).to_contain_text("Someone has taken this seat already, and the game has started.")
    expect(guest_page.get_by_role("button", name="Take the seat")).to_be_hidden()
    expect(guest_page.locator("#error")).to_be_hidden()
    watch = taken.get_by_role("link", name="Watch the game")
    expect(watch).to_have_attribute("href", f"{stack.base}/web/table.html#{game_id}/watch")
    assert_fits(guest_page)
    screenshot(guest_page, "join-taken")
    watch.click()
    expect(guest_page.locator("#title")).to_contain_text("watching")


def test_a_seat_taken_while_the_page_was_open_is_said_once(guest_page: Page, stack: Stack) -> None:
    game_id, code = _invited_game(stack)
    guest_page.goto(f"/web/join.html#{code}")
    take = guest_page.get_by_role("button", name="Take the seat")
    expect(take).to_be_visible()
    _claim(stack, code)  # someone else was quicker
    take.click()
    expect(guest_page.locator("#taken")).to_contain_text("Someone has taken this seat already")
    expect(guest_page.locator("#taken").get_by_role("link", name="Watch the game")).to_be_visible()
    expect(take).to_be_hidden()
    expect(guest_page.locator("#error")).to_be_hidden()  # no "…settled. the game has started"
    assert httpx.get(f"{stack.base}/v1/games/{game_id}").json()["seats"][1]["name"] == "Cy"


def test_a_code_cut_short_is_said_in_words(guest_page: Page) -> None:
    guest_page.goto("/web/join.html#abc")
    error = guest_page.locator("#error")
    expect(error).to_have_text(
        "This invite link is incomplete or mistyped: open the whole link you were sent, "
        "or ask for it again."
    )
    expect(guest_page.get_by_role("button", name="Take the seat")).to_be_hidden()
    screenshot(guest_page, "join-cut-short")


def test_a_second_invite_pasted_into_the_same_tab_shows_that_invite(
    guest_page: Page, stack: Stack
) -> None:
    _, first = _invited_game(stack)
    _, second = _invited_game(stack)
    _claim(stack, second)  # the second one's seat is taken: the page says so
    guest_page.goto(f"/web/join.html#{first}")
    expect(guest_page.get_by_role("button", name="Take the seat")).to_be_visible()
    guest_page.evaluate(f"location.hash = {second!r}")  # only the hash changes
    expect(guest_page.locator("#taken")).to_contain_text("Someone has taken this seat already")
    expect(guest_page.get_by_role("button", name="Take the seat")).to_be_hidden()
    assert_fits(guest_page)
    screenshot(guest_page, "join-second-invite")
