"""Two people, each in a browser of their own, play a whole game started from an invite."""

from __future__ import annotations

import random

from playwright.sync_api import Page, expect

from tests.browser.clicking import create_in_lobby, play_together
from tests.browser.conftest import screenshot


def test_two_people_play_a_game_started_from_an_invite(page: Page, guest_page: Page) -> None:
    game_id = create_in_lobby(page, "feds", ["human", "open"])
    link = page.locator('[data-invite="1"]').input_value()
    assert "/web/join.html#" in link
    screenshot(page, "lobby-created")
    page.locator("#created").get_by_role("link", name="Play seat 0").click()
    expect(page.locator("body")).to_have_attribute("data-status", "waiting")
    expect(page.locator("#status")).to_contain_text("Waiting for players")
    screenshot(page, "feds-waiting")

    # The guest opens the link, sees the game, takes the seat with a name.
    guest_page.goto(link)
    expect(guest_page.locator("#invite")).to_contain_text("The Feds")
    guest_page.get_by_label("Your name at the table").fill("Bea")
    screenshot(guest_page, "join")
    guest_page.get_by_role("button", name="Take the seat").click()
    expect(guest_page).to_have_url(f"{link.split('/web/')[0]}/web/table.html#{game_id}/1")
    expect(guest_page.locator("body")).to_have_attribute("data-status", "active")
    # The host's table starts by itself (live), and knows the guest by name.
    expect(page.locator("body")).to_have_attribute("data-status", "active")
    expect(page.locator('#seats [data-seat="1"]')).to_contain_text("Bea")

    clicks = play_together([page, guest_page], random.Random(8))
    assert clicks >= 4
    for person in (page, guest_page):
        expect(person.locator("[data-result]")).to_contain_text("Scores")
    screenshot(guest_page, "feds-two-people-finished")

    # Another round: the host asks for a rematch; the guest's table offers the way there.
    page.get_by_role("button", name="Rematch").click()
    expect(page.locator("body")).to_have_attribute("data-status", "active")
    rematch_id = page.url.split("#", 1)[1].split("/")[0]
    assert rematch_id != game_id
    guest_page.get_by_role("button", name="To the rematch").click()
    expect(guest_page).to_have_url(f"{link.split('/web/')[0]}/web/table.html#{rematch_id}/0")
    expect(guest_page.locator("#title")).to_contain_text("seat 0")  # seats rotated by one
    expect(page.locator("#title")).to_contain_text("seat 1")
