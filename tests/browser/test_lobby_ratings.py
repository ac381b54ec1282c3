"""A game made in the lobby can be rated (issue #39, item 4): each person's seat names its
player (the API's `external_id`), the form says as the seats stand whether the game will
be rated and why not, the made game and the list say it too, and a game so made, played
to the end, puts its player on the leaderboard."""

from __future__ import annotations

import itertools
from types import SimpleNamespace
from typing import Any, cast

import httpx
from playwright.sync_api import Page, expect

from domain.match import Match, SeatSpec
from service.players.ratings import seat_identity
from tests.browser.clicking import create_in_lobby
from tests.browser.conftest import assert_fits, screenshot
from tests.browser.stack import Stack
from tests.helpers import auth, wait_for


def test_the_new_game_form_names_players_and_says_whether_the_game_is_rated(
    page: Page, stack: Stack
) -> None:
    page.goto("/web/")
    page.get_by_label("Game", exact=True).select_option("fbi")
    rated = page.locator("#rated")
    page.get_by_label("Seat 1", exact=True).select_option("human")
    expect(rated).to_have_attribute("data-rated", "false")
    expect(rated).to_contain_text("Not rated: Seat 0 and seat 1 have no player id")
    expect(rated).to_contain_text("Give a person's seat a player id to rate it.")
    assert_fits(page)
    screenshot(page, "lobby-new-game-unrated")
    # A bot seat has no player id to give (its level is what is rated).
    page.get_by_label("Seat 1", exact=True).select_option("greedy")
    expect(page.get_by_label("Seat 1 player id", exact=True)).to_be_hidden()
    expect(page.get_by_label("Seat 0 player id", exact=True)).to_be_visible()
    expect(rated).to_contain_text("Not rated: Seat 0 has no player id")
    page.get_by_label("Seat 0 player id", exact=True).fill("u-lobby-ann")
    expect(rated).to_have_attribute("data-rated", "true")
    expect(rated).to_contain_text("Rated: played to the end")
    page.get_by_role("button", name="Add a seat").click()
    page.get_by_label("Seat 2", exact=True).select_option("open")
    expect(rated).to_contain_text("Rated, but not for seat 2")
    assert_fits(page)
    screenshot(page, "lobby-new-game-rated")


def test_a_player_id_the_api_refuses_is_said_by_its_seat(page: Page, stack: Stack) -> None:
    page.goto("/web/")
    page.get_by_label("Game", exact=True).select_option("fbi")
    page.get_by_label("Seat 0 player id", exact=True).fill("team/ann")
    page.get_by_role("button", name="Create the game").click()
    error = page.locator("#error")
    expect(error).to_contain_text("The game was not created: seat 0's player id is refused")
    expect(error).not_to_contain_text("seats[0]")
    expect(error).not_to_contain_text("external_id")
    expect(page.locator("#created")).to_be_empty()
    screenshot(page, "lobby-player-id-refused")


def test_a_game_made_in_the_lobby_with_a_player_id_is_rated(page: Page, stack: Stack) -> None:
    game_id = create_in_lobby(
        page, "fbi", ["human", "greedy"], names=["Ann"], players=["u-lobby-rated"]
    )
    made = page.locator("#created .rated")
    expect(made).to_have_attribute("data-rated", "true")
    seat = httpx.get(f"{stack.base}/v1/games/{game_id}").json()["seats"][0]
    assert (seat["name"], seat["external_id"]) == ("Ann", "u-lobby-rated")
    # An unrated one beside it: the list says why.
    plain = create_in_lobby(page, "fbi", ["human", "random"])
    expect(page.locator("#created .rated")).to_contain_text("Not rated: Seat 0 has no player id")
    row = page.locator(f'#my-games [data-game="{plain}"]')
    expect(row.locator(".game-rated")).to_contain_text("Not rated: Seat 0 has no player id")
    expect(page.locator(f'#my-games [data-game="{game_id}"] .game-rated')).to_have_count(0)
    assert_fits(page)
    screenshot(page, "lobby-rated-and-not")
    # Ann gives up at once (a resignation is a loss, and rated): the bots finish the game.
    token = page.evaluate(f"JSON.parse(localStorage.getItem('stakeout.seats.{game_id}'))[0]")
    gave_up = httpx.post(f"{stack.base}/v1/games/{game_id}/resign", headers=auth(token))
    assert gave_up.status_code == 200, gave_up.text

    def rated_once() -> bool:
        answer = httpx.get(f"{stack.base}/v1/players/u-lobby-rated", headers=auth(stack.api_key))
        return answer.status_code == 200 and bool(answer.json()["ratings"])

    wait_for(rated_once, timeout=120, interval=0.3)
    page.goto("/web/leaderboard.html#fbi")
    expect(page.locator("table.board")).to_contain_text("u-lobby-rated")


# The page's rule (ratings.js) on every table of three seats made of these, beside the
# server's (service/players/ratings.py): who each seat rates, and whether the game is rated.
SEATS: list[dict[str, Any]] = [
    {"type": "human"},
    {"type": "human", "external_id": "u-1"},
    {"type": "open", "external_id": "u-2"},
    {"type": "open"},
    {"type": "bot", "level": "random"},
    {"type": "bot", "level": "greedy"},
    {"type": "bot", "level": "random", "resigned": True},
    {"type": "bot", "level": "random", "resigned": True, "external_id": "u-1"},
]
RULE = """async (tables) => {
  const { identity, rating } = await import("/web/ratings.js");
  return tables.map((seats) => ({ identities: seats.map(identity), rated: rating(seats).rated }));
}"""


def _server_rule(seats: list[dict[str, Any]]) -> dict[str, Any]:
    specs = [SeatSpec(s["type"], s.get("level"), None, s.get("external_id")) for s in seats]
    gave_up = [i for i, s in enumerate(seats) if s.get("resigned")]
    # All seat_identity reads of it (a flagged seat is a person's: bots have no clock).
    match = cast(Match, SimpleNamespace(resigned=gave_up, flagged=[]))
    identities = [seat_identity(i, spec, match) for i, spec in enumerate(specs)]
    return {"identities": identities, "rated": len({i for i in identities if i}) >= 2}


def test_the_page_says_rated_exactly_when_the_server_rates(page: Page) -> None:
    tables = [list(t) for t in itertools.product(SEATS, repeat=3)]
    page.goto("/web/")
    said = page.evaluate(RULE, tables)
    assert said == [_server_rule(t) for t in tables]
    assert any(s["rated"] for s in said)
    assert not all(s["rated"] for s in said)
