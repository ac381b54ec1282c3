"""A sealed step done by the page: it commits, keeps the move and salt across a reload, and
reveals by itself when every seat has committed."""

from __future__ import annotations

import random
import time

import httpx
from playwright.sync_api import Page, expect

from tests.browser.clicking import state
from tests.browser.stack import Stack
from tests.processes import HumanSeat, next_request


def test_the_page_keeps_its_sealed_choice_across_a_reload_and_reveals_it(
    page: Page, stack: Stack
) -> None:
    created = httpx.post(
        f"{stack.base}/v1/games",
        json={"game": "fbi", "seats": [{"type": "human"}, {"type": "human"}]},
        headers={"Authorization": f"Bearer {stack.api_key}"},
    ).json()
    game_id = created["id"]
    mine, other = (HumanSeat(game_id, s["seat"], s["token"]) for s in created["seats"])
    page.add_init_script(
        f"localStorage.setItem('stakeout.seats.{game_id}', JSON.stringify({{0: {mine.token!r}}}))"
    )
    page.goto(f"/web/table.html#{game_id}")
    rng = random.Random(2)
    other_headers = {"Authorization": f"Bearer {other.token}"}

    def other_acts_if_asked(reveal: bool = False) -> None:
        seen = httpx.get(f"{stack.base}/v1/games/{game_id}", headers=other_headers).json()
        asked = [a["action"] for a in seen["awaiting"] if a["seat"] == 1]
        if asked and (asked[0] != "reveal" or reveal):
            request = next_request(other, seen, rng)
            assert request is not None
            answer = httpx.post(stack.base + request[0], json=request[1], headers=other_headers)
            assert answer.status_code == 200, answer.text

    # Up to the sealed step (the other seat releases over HTTP; this page clicks).
    deadline = time.monotonic() + 60
    while state(page)[1] != "commit":
        assert time.monotonic() < deadline, "no sealed step came"
        if state(page)[1] == "move":
            version = state(page)[2]
            page.locator("#table [data-move]:enabled").first.click()
            page.wait_for_function(f"() => Number(document.body.dataset.version) > {version}")
        else:
            other_acts_if_asked()
            page.wait_for_timeout(100)

    version = state(page)[2]
    page.locator("#table [data-move]:enabled").first.click()
    expect(page.locator("body")).to_have_attribute("data-awaiting-me", "committed")
    step = page.evaluate(f"JSON.parse(localStorage.getItem('stakeout.sealed.{game_id}.0'))")
    kept = page.evaluate(f"JSON.parse(localStorage.getItem('stakeout.sealed.{game_id}.0.{step}'))")
    assert set(kept) == {"move", "salt", "commitment"}
    assert state(page)[2] > version

    # A reload: the choice is still there, and the page says it is committed.
    page.reload()
    expect(page.locator("#status")).to_contain_text("committed")
    # The other seat commits (if it had not): reveals open; the page reveals on its own.
    other_acts_if_asked()
    other_acts_if_asked(reveal=True)
    page.wait_for_function(
        f"() => localStorage.getItem('stakeout.sealed.{game_id}.0.{step}') === null"
    )
    events = httpx.get(
        f"{stack.base}/v1/games/{game_id}/events", params={"limit": 500}, headers=other_headers
    ).json()["events"]
    revealed = [e["event"] for e in events if e["event"]["type"] == "seal.revealed"]
    assert any(e["seat"] == 0 and e["step"] == step for e in revealed)
