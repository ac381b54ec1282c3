"""One person plays a whole game of each kind against bots, only by clicking the table."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Page, expect

from tests.browser.clicking import create_in_lobby, play_to_the_end, state, wait_for_my_turn
from tests.browser.conftest import screenshot

# The smallest tables and shortest games the rules allow, bots at the random level.
GAMES: dict[str, tuple[list[str], dict[str, str], int | None]] = {
    "fbi": (["human", "random"], {}, 600),  # with a turn deadline: the countdown shows
    "feds": (["human", "random"], {}, None),
    "bonnie_clyde": (["human", "random"], {"target": "10"}, None),
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_person_plays_a_whole_game_against_bots_by_clicking(page: Page, game: str) -> None:
    seats, options, turn_seconds = GAMES[game]
    game_id = create_in_lobby(page, game, seats, options, turn_seconds)
    page.locator("#created").get_by_role("link", name="Play seat 0").click()
    expect(page.locator("#table [data-move]").first).to_be_visible()
    if turn_seconds:
        expect(page.locator("#status .deadline")).to_contain_text("time left 9:")

    def shoot(clicks: int) -> None:
        if clicks == 3:
            wait_for_my_turn(page)
            if turn_seconds and state(page)[0] == "active":  # live views carry it too
                expect(page.locator("#status .deadline")).to_contain_text("time left")
            screenshot(page, f"{game}-table")

    clicks = play_to_the_end(page, random.Random(17), on_turn=shoot)
    assert clicks >= 3
    expect(page.locator("[data-result]")).to_contain_text("Scores")
    # No seat named a player, and one bot level alone is no rating: the table says so.
    expect(page.locator("#status .game-rated")).to_contain_text(
        "Not rated: Seat 0 has no player id"
    )
    screenshot(page, f"{game}-finished")
    assert page.url.endswith(f"#{game_id}/0")
