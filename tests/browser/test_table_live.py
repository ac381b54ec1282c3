"""The live table (issue #34 §4) at 360 and 1280 px: each seat's time bank counts down
from the server's time while the seat is awaited (and only then), and says when it is
empty; a seat's presence dot turns online when its token is used, brought by the feed's
presence message (no new version of the game); a seat a bot plays while its player is away
says so, until the player is back."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.browser.conftest import LAPTOP, PHONE, assert_fits
from tests.browser.stack import Stack

WIDTHS = [pytest.param(PHONE, id="360"), pytest.param(LAPTOP, id="1280")]


def _game(stack: Stack, game: str, **settings: Any) -> tuple[str, list[str]]:
    """A game of Al (seat 0, this browser's) and Bo (seat 1, the test's); its id and the
    seats' tokens."""
    created = httpx.post(
        f"{stack.base}/v1/games",
        json={
            "game": game,
            "seats": [{"type": "human", "name": "Al"}, {"type": "human", "name": "Bo"}],
            "options": {},
            **settings,
        },
        headers={"Authorization": f"Bearer {stack.api_key}"},
    )
    assert created.status_code == 201, created.text
    body = created.json()
    return str(body["id"]), [str(s["token"]) for s in body["seats"]]


def _open_as_al(page: Page, size: ViewportSize, game_id: str, token: str) -> None:
    page.set_viewport_size(size)
    page.add_init_script(
        f"localStorage.setItem('stakeout.seats.{game_id}', JSON.stringify({{0: {token!r}}}))"
    )
    page.goto(f"/web/table.html#{game_id}/0")
    expect(page.locator("#feed-state")).to_have_attribute("data-state", "live")


def _shot(page: Page, folder: Path, name: str) -> None:
    width = (page.viewport_size or LAPTOP)["width"]
    page.screenshot(path=str(folder / f"{name}-{width}.png"), full_page=True)


def _seconds(text: str) -> int:
    """ "1:02:03" or "4:58" -> seconds."""
    total = 0
    for part in text.split(":"):
        total = total * 60 + int(part)
    return total


def _bank(page: Page, seat: int) -> str:
    return page.locator(f'[data-seat="{seat}"] .bank-left').inner_text()


@pytest.mark.parametrize("size", WIDTHS)
def test_the_awaited_seats_bank_counts_down_and_the_others_stands_still(
    page: Page, stack: Stack, size: ViewportSize, screenshots_folder: Path
) -> None:
    clock = {"initial_seconds": 600, "increment_seconds": 5, "on_time_out": "bot_seat"}
    game_id, tokens = _game(stack, "fbi", clock=clock)
    _open_as_al(page, size, game_id, tokens[0])
    view = httpx.get(f"{stack.base}/v1/games/{game_id}").json()
    running = [s["seat"] for s in view["seats"] if s["clock"]["running"]]
    assert len(running) == 1, view["seats"]  # FBI's release round: one seat at a time
    awaited, other = running[0], 1 - running[0]
    bank = page.locator(f'[data-seat="{awaited}"] [data-bank]')
    expect(bank).to_have_attribute("data-running", "true")
    expect(bank).to_have_attribute("title", re.compile(r"^Time bank: 9:\d\d left, counting down$"))
    first = _seconds(_bank(page, awaited))
    still = _bank(page, other)
    assert _seconds(still) == 600  # not yet awaited: never charged
    # Counting down, a second at a time, as the server's clock goes (two steps: the
    # shown value decreased, and then again).
    for _ in range(2):
        page.wait_for_function(
            """([seat, shown]) => {
                const node = document.querySelector(`[data-seat="${seat}"] .bank-left`);
                const [m, s] = node.textContent.split(":").map(Number);
                return m * 60 + s < shown;
            }""",
            arg=[awaited, first],
        )
        first = _seconds(_bank(page, awaited))
    assert _bank(page, other) == still  # only a running bank counts
    expect(page.locator(f'[data-seat="{other}"] [data-bank]')).to_have_attribute(
        "data-running", "false"
    )
    expect(bank).not_to_have_attribute("data-level", "low")  # ten minutes is not low
    assert_fits(page)
    _shot(page, screenshots_folder, "table-clock")


@pytest.mark.parametrize("size", WIDTHS)
def test_a_bank_running_low_then_empty_says_so(
    page: Page, stack: Stack, size: ViewportSize, screenshots_folder: Path
) -> None:
    # FBI's release round awaits one seat at a time: the first seat's 15 s run out (low from
    # the start: under 30 s), a bot plays its turn (bot_turn: the seat stays a person's, its
    # bank at 0 with no increment) and the other seat's 15 s run while the page says the
    # first is out of time.
    clock = {"initial_seconds": 15, "increment_seconds": 0, "on_time_out": "bot_turn"}
    game_id, tokens = _game(stack, "fbi", clock=clock)
    _open_as_al(page, size, game_id, tokens[0])
    running = page.locator('[data-bank][data-running="true"]')
    expect(running).to_have_count(1)
    expect(running).to_have_attribute("data-level", "low")
    _shot(page, screenshots_folder, "table-clock-low")
    empty = page.locator('[data-bank][data-level="empty"]')
    expect(empty).to_have_count(1)
    expect(empty.locator(".bank-left")).to_have_text("out of time")
    expect(empty).to_have_attribute("title", "Time bank empty")
    expect(page.locator("#log-list")).to_contain_text("time bank ran out: a bot plays this turn.")
    assert_fits(page)
    _shot(page, screenshots_folder, "table-clock-empty")


@pytest.mark.parametrize("size", WIDTHS)
def test_a_seats_dot_turns_online_when_its_token_is_used_without_a_new_view(
    page: Page, stack: Stack, size: ViewportSize, screenshots_folder: Path
) -> None:
    game_id, tokens = _game(stack, "feds")
    _open_as_al(page, size, game_id, tokens[0])
    mine, bos = page.locator('[data-seat="0"] .presence'), page.locator('[data-seat="1"] .presence')
    expect(mine).to_have_attribute("data-presence", "online")  # this page's own feed
    expect(mine).to_have_attribute("aria-label", "online")
    expect(bos).to_have_attribute("data-presence", "never")
    expect(bos).to_have_attribute("aria-label", "not seen yet")
    expect(page.get_by_role("img", name="not seen yet")).to_have_count(1)
    _shot(page, screenshots_folder, "table-presence-never")
    version = page.locator("body").get_attribute("data-version")
    seen = httpx.get(
        f"{stack.base}/v1/games/{game_id}", headers={"Authorization": f"Bearer {tokens[1]}"}
    )
    assert seen.status_code == 200, seen.text
    expect(bos).to_have_attribute("data-presence", "online")
    expect(bos).to_have_attribute("title", "online")
    # Nobody acted: the dot came with the feed's presence message, not with a new view.
    assert page.locator("body").get_attribute("data-version") == version
    assert_fits(page)
    _shot(page, screenshots_folder, "table-presence-online")


@pytest.mark.parametrize("size", WIDTHS)
def test_an_away_seat_played_by_a_bot_says_so_until_its_player_is_back(
    page: Page, stack: Stack, size: ViewportSize, screenshots_folder: Path
) -> None:
    # Bo is never seen: 5 s after the game began his sealed choice is played as a time-out,
    # and the game waits for Al, whose page is open.
    game_id, tokens = _game(stack, "feds", away_seconds=5)
    _open_as_al(page, size, game_id, tokens[0])
    line = page.locator('[data-away-seat="1"]')
    expect(line).to_contain_text("Bo is away: a bot plays their turns until they are back.")
    expect(line).to_contain_text("Since ")
    expect(page.locator("[data-away-seat]")).to_have_count(1)  # Al is at the table
    assert_fits(page)
    _shot(page, screenshots_folder, "table-away")
    # Bo is back (his token reads the game): the line goes, his dot is online.
    back = httpx.get(
        f"{stack.base}/v1/games/{game_id}", headers={"Authorization": f"Bearer {tokens[1]}"}
    )
    assert back.status_code == 200, back.text
    expect(line).to_have_count(0)
    expect(page.locator('[data-seat="1"] .presence')).to_have_attribute("data-presence", "online")
