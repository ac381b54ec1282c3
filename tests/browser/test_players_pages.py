"""Quick match in the lobby and a game's leaderboard, as a person meets them (issue 30):
both fit a phone; a quick match waits without a connection and ends at the player's seat."""

from __future__ import annotations

import asyncio
import threading

import httpx
import redis.asyncio
from playwright.sync_api import Page, expect

from domain.match import SeatSpec
from service.play.access import ApiKeys
from service.players.rating_store import RatingStore
from tests.browser.conftest import assert_fits, screenshot
from tests.browser.stack import Stack
from tests.helpers import auth
from tests.integration.test_ratings import _finished


def test_a_quick_match_waits_then_seats_the_player_at_its_table(page: Page, stack: Stack) -> None:
    page.goto("/web/")
    page.get_by_label("Game to play").select_option("fbi")
    page.locator("#qm-player").fill("web-ann")
    page.locator("#qm-name").fill("Ann")
    for count in (3, 4, 5):
        page.locator(f"#qm-seats [data-count='{count}']").uncheck()
    page.locator("#qm-bots").fill("")  # people only
    page.get_by_role("button", name="Find a game").click()
    waiting = page.locator("#qm-status [data-ticket='waiting']")
    expect(waiting).to_contain_text("Looking for a table of 2 (people only)")
    assert_fits(page)
    screenshot(page, "quick-match-waiting")
    # A reload keeps waiting on the same ticket: no connection had to stay open.
    page.reload()
    expect(page.locator("#qm-status [data-ticket='waiting']")).to_be_visible()
    other = httpx.post(
        f"{stack.base}/v1/matchmaking/tickets",
        json={"game": "fbi", "player": {"external_id": "api-bob", "name": "Bob"}, "seats": [2]},
        headers=auth(stack.api_key),
        timeout=30,
    )
    assert other.status_code == 201, other.text
    play = page.locator("#qm-status [data-quick-play]")
    expect(play).to_be_visible(timeout=20_000)
    assert_fits(page)
    screenshot(page, "quick-match-found")
    play.click()
    expect(page.locator(".seat.you")).to_contain_text("Ann")


def test_stopping_a_quick_match_says_so_and_a_ticket_cancelled_elsewhere_too(
    page: Page, stack: Stack
) -> None:
    """A cancelled ticket is gone (GET 404): the page says it stopped, not a raw problem."""
    page.goto("/web/")
    page.get_by_label("Game to play").select_option("feds")
    page.locator("#qm-player").fill("web-stopper")
    page.locator("#qm-bots").fill("")  # people only: nobody comes
    page.get_by_role("button", name="Find a game").click()
    expect(page.locator("#qm-status [data-ticket='waiting']")).to_be_visible()
    page.get_by_role("button", name="Stop looking").click()
    expect(page.locator("#qm-status [data-ticket='cancelled']")).to_have_text("Stopped looking.")
    # Again, cancelled from elsewhere (another tab, the player's backend) while it waits.
    page.get_by_role("button", name="Find a game").click()
    expect(page.locator("#qm-status [data-ticket='waiting']")).to_be_visible()
    kept = page.evaluate("JSON.parse(localStorage.getItem('stakeout.ticket'))")
    gone = httpx.delete(
        f"{stack.base}/v1/matchmaking/tickets/{kept['id']}", headers=auth(stack.api_key)
    )
    assert gone.status_code == 200, gone.text
    told = page.locator("#qm-status [data-ticket='gone']")
    expect(told).to_have_text("Stopped looking: this ticket was cancelled.")
    expect(page.locator("#qm-status .error")).to_have_count(0)
    assert_fits(page)
    screenshot(page, "quick-match-cancelled")


def _rate_players(stack: Stack) -> None:
    owner = ApiKeys((stack.api_key,)).identify(stack.api_key) or ""
    names = ["Ann", "Bob", "Cy", "Dee", "Eve"]

    async def rate() -> None:
        client = redis.asyncio.Redis.from_url(stack.redis_url)
        store = RatingStore(client)
        number = 0
        for _ in range(4):
            for a in range(len(names)):
                for b in range(a + 1, len(names)):
                    seats = [
                        SeatSpec("human", None, names[x], f"board-{names[x].lower()}")
                        for x in (a, b)
                    ]
                    seats.append(SeatSpec("bot", "greedy"))
                    loaded = _finished(f"{number:024x}", seats, [1, 2, 3], owner, "feds")
                    await store.rate_game(loaded)
                    number += 1
        await client.aclose()

    # On a thread of its own: Playwright's loop runs in this one.
    thread = threading.Thread(target=asyncio.run, args=(rate(),))
    thread.start()
    thread.join(timeout=60)


def test_the_leaderboard_ranks_players_and_bots_and_finds_a_player(
    page: Page, stack: Stack
) -> None:
    _rate_players(stack)
    page.goto("/web/leaderboard.html#feds")
    rows = page.locator("table.board tbody tr")
    expect(rows).to_have_count(6)
    expect(rows.nth(0)).to_contain_text("Ann (board-ann)")
    expect(page.locator("table.board")).to_contain_text("Bot (greedy)")
    expect(page.locator("#title")).to_contain_text("The Feds")
    ratings = [
        int(r.split()[0])
        for r in page.locator("table.board tbody td:nth-child(3)").all_inner_texts()
    ]
    assert ratings == sorted(ratings, reverse=True)
    assert_fits(page)
    screenshot(page, "leaderboard-feds")
    page.locator("#board-around").fill("board-dee")
    page.get_by_role("button", name="Show").click()
    expect(page.locator("table.board tr[aria-current]")).to_contain_text("Dee")
    page.locator("#board-around").fill("nobody-at-all")
    page.get_by_role("button", name="Show").click()
    expect(page.locator("#error")).to_contain_text("no rating")
    page.goto("/web/")
    page.get_by_role("link", name="Leaderboards").click()
    expect(page).to_have_url(f"{stack.base}/web/leaderboard.html#fbi")
