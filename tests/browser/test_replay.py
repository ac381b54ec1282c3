"""A finished game replayed in the page to its end, verified there (the badge is green), and
a tampered replay shown red."""

from __future__ import annotations

import time

import httpx
from playwright.sync_api import Page, Route, expect

from tests.browser.conftest import assert_fits, screenshot
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
    dealt = int(httpx.get(f"{stack.base}/v1/games/{game_id}/replay/1").json()["version"])
    expect(page.locator("#position")).to_contain_text(f"Event {dealt} of")  # as dealt
    for _ in range(8):
        page.get_by_role("button", name="Next event").click()
    expect(page.locator("#position")).to_contain_text(f"Event {dealt + 8} of")
    expect(page.locator("body")).to_have_attribute("data-at", str(dealt + 8))
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


def test_another_game_in_the_same_tab_replays_that_game(page: Page, stack: Stack) -> None:
    first = _finished_bot_game(stack, "fbi", {})
    second = _finished_bot_game(stack, "bonnie_clyde", {"target": 10})
    page.goto(f"/web/replay.html#{first}")
    expect(page.locator("#title")).to_have_text("Replay: FBI")
    expect(page.locator("#badge")).to_have_attribute("data-verified", "true")
    page.evaluate(f"location.hash = {second!r}")
    expect(page.locator("#title")).to_have_text("Replay: Bonnie and Clyde")
    events = httpx.get(f"{stack.base}/v1/games/{second}/replay").json()["events"]
    expect(page.locator("#slider")).to_have_attribute("max", str(len(events)))
    expect(page.locator("#badge")).to_have_attribute("data-verified", "true")


def _finished_with_my_seat(stack: Stack) -> tuple[str, str]:
    """An FBI game whose seat 0 was a person who resigned at once (the bots finished it)."""
    key = {"Authorization": f"Bearer {stack.api_key}"}
    seats = [{"type": "human"}, {"type": "bot", "level": "random"}]
    created = httpx.post(
        f"{stack.base}/v1/games", json={"game": "fbi", "seats": seats}, headers=key
    ).json()
    game_id, token = str(created["id"]), str(created["seats"][0]["token"])
    resigned = httpx.post(
        f"{stack.base}/v1/games/{game_id}/resign", headers={"Authorization": f"Bearer {token}"}
    )
    assert resigned.status_code == 200, resigned.text
    deadline = time.monotonic() + 120
    while httpx.get(f"{stack.base}/v1/games/{game_id}/replay").status_code != 200:
        assert time.monotonic() < deadline, "the bots did not finish the game"
        time.sleep(0.3)
    return game_id, token


def test_you_is_the_seat_chosen_in_seen_by(page: Page, stack: Stack) -> None:
    game_id, token = _finished_with_my_seat(stack)
    page.add_init_script(
        f"localStorage.setItem('stakeout.seats.{game_id}', JSON.stringify({{0: {token!r}}}))"
    )
    page.goto(f"/web/replay.html#{game_id}")
    events = page.locator("#event-list")
    seen_by = page.get_by_label("Seen by")
    expect(seen_by).to_have_value("0")  # the seat this browser held
    expect(events).to_contain_text("you +")  # the purple cards dealt to seat 0
    page.get_by_role("button", name="Last event").click()
    expect(page.locator("#table .gt-seat.mine")).to_have_count(1)
    seen_by.select_option(label="a spectator")
    expect(events).not_to_contain_text("you", ignore_case=True)
    expect(page.locator("#event-now")).not_to_contain_text("you", ignore_case=True)
    expect(page.locator("#table .gt-seat.mine")).to_have_count(0)
    seen_by.select_option(label="Seat 1")
    expect(events).to_contain_text("Seat 0 resigned")
    expect(events.locator("li").filter(has_text="You released").first).to_be_visible()


def test_the_replay_opens_at_the_deal_as_dealt(page: Page, stack: Stack) -> None:
    game_id = _finished_bot_game(stack, "fbi", {})
    dealt = int(httpx.get(f"{stack.base}/v1/games/{game_id}/replay/1").json()["version"])
    assert dealt > 1  # the server answers the deal's last version for each of its events
    page.goto(f"/web/replay.html#{game_id}")
    # Opened at the table as dealt, not at event 1 with a table not laid out yet.
    expect(page.locator("body")).to_have_attribute("data-at", str(dealt))
    expect(page.locator("#position")).to_have_text(
        f"Event {dealt} of {_events(stack, game_id)} · as dealt"
    )
    expect(page.locator("#table .fbi")).to_be_visible()
    setup = page.locator("#table [data-setup]")
    expect(setup).to_have_count(0)
    assert_fits(page)
    screenshot(page, "fbi-replay-as-dealt")
    # An event of the deal before it says where the table is, and leads there.
    page.get_by_role("button", name="Previous event").click()
    expect(setup).to_contain_text(
        f"Events 1 to {dealt} are the deal, all at once: the table as dealt is at event {dealt}."
    )
    expect(page.locator("#table .fbi")).to_have_count(0)
    screenshot(page, "fbi-replay-setup")
    page.get_by_role("button", name=f"Show the table as dealt (event {dealt})").click()
    expect(page.locator("body")).to_have_attribute("data-at", str(dealt))
    expect(page.locator("#table .fbi")).to_be_visible()


def _events(stack: Stack, game_id: str) -> int:
    return len(httpx.get(f"{stack.base}/v1/games/{game_id}/replay").json()["events"])


def test_a_game_still_being_played_says_so_and_leads_to_its_table(page: Page, stack: Stack) -> None:
    created = httpx.post(
        f"{stack.base}/v1/games",
        json={"game": "feds", "seats": [{"type": "human"}, {"type": "human"}]},
        headers={"Authorization": f"Bearer {stack.api_key}"},
    ).json()
    game_id = created["id"]
    page.goto(f"/web/replay.html#{game_id}")
    expect(page.locator("#badge")).to_have_text("still being played")
    expect(page.locator("#result")).to_have_text(
        "This game is still being played: its replay opens when it ends."
    )
    expect(page.locator("#title")).to_have_text("Replay: The Feds")
    live = page.locator("[data-live]")
    expect(live).to_have_attribute("href", f"{stack.base}/web/table.html#{game_id}/watch")
    expect(page.locator("#stepper")).to_be_hidden()
    assert_fits(page)
    screenshot(page, "replay-not-over")
    live.click()
    expect(page.locator("#title")).to_contain_text("watching")
