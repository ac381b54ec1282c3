"""Live pages: a spectator follows a game as it is played, and a feed that drops (the API
process killed and started again) resumes where it was, with what happened meanwhile."""

from __future__ import annotations

import random
import time
from typing import Any

import httpx
from playwright.sync_api import Page, Request, expect

from tests.browser.conftest import screenshot
from tests.browser.stack import Stack
from tests.processes import HumanSeat, next_request


def _remote_game(stack: Stack) -> HumanSeat:
    """A public game between a person the test plays over HTTP (seat 0) and a random bot."""
    created = httpx.post(
        f"{stack.base}/v1/games",
        json={
            "game": "fbi",
            "seats": [{"type": "human"}, {"type": "bot", "level": "random"}],
            "public": True,
        },
        headers={"Authorization": f"Bearer {stack.api_key}"},
    )
    assert created.status_code == 201, created.text
    body = created.json()
    return HumanSeat(body["id"], 0, body["seats"][0]["token"])


def _act_when_asked(stack: Stack, seat: HumanSeat, rng: random.Random) -> int:
    """Wait until seat 0 is asked, make one request (move, commit or reveal); the version."""
    headers = {"Authorization": f"Bearer {seat.token}"}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        seen: dict[str, Any] = httpx.get(
            f"{stack.base}/v1/games/{seat.game_id}", headers=headers
        ).json()
        request = next_request(seat, seen, rng)
        if request is not None:
            path, body = request
            answer = httpx.post(stack.base + path, json=body, headers=headers)
            assert answer.status_code == 200, answer.text
            return int(answer.json()["version"])
        assert seen["status"] == "active", seen["status"]
        time.sleep(0.05)
    raise AssertionError("seat 0 was never asked")


def _page_version(page: Page) -> int:
    return int(page.locator("body").get_attribute("data-version") or 0)


def _feeds(page: Page) -> list[str]:
    """The URLs of the live requests the page makes (view feeds and any long-poll)."""
    urls: list[str] = []

    def seen(request: Request) -> None:
        if "/stream?" in request.url or "wait=" in request.url:
            urls.append(request.url)

    page.on("request", seen)
    return urls


def test_a_spectator_follows_a_public_game_live(page: Page, stack: Stack) -> None:
    seat = _remote_game(stack)
    feeds = _feeds(page)
    # Found in the lobby's public games, opened from there.
    page.goto("/web/")
    page.locator(f'#public-games [data-game="{seat.game_id}"]').get_by_role(
        "link", name="watch"
    ).click()
    expect(page).to_have_url(f"{stack.base}/web/table.html#{seat.game_id}/watch")
    expect(page.locator("#feed-state")).to_have_attribute("data-state", "live")
    rng = random.Random(3)
    seen_versions = set()
    for _ in range(8):
        version = _act_when_asked(stack, seat, rng)
        page.wait_for_function(f"() => Number(document.body.dataset.version) >= {version}")
        seen_versions.add(_page_version(page))
    assert len(seen_versions) >= 6  # it moved along with the game, act by act
    expect(page.locator("#title")).to_contain_text("watching")
    assert page.locator("#table [data-move]").count() == 0  # a spectator has no moves
    expect(page.locator("#log-list li").first).not_to_be_empty()
    screenshot(page, "fbi-spectator")
    # One view feed opened with a ticket, held all along: no polling.
    assert len(feeds) == 1, feeds
    assert "ticket=" in feeds[0]
    assert "feed=view" in feeds[0]


def _two_person_game(stack: Stack) -> list[HumanSeat]:
    """An FBI game between two people the test plays over HTTP."""
    created = httpx.post(
        f"{stack.base}/v1/games",
        json={"game": "fbi", "seats": [{"type": "human"}, {"type": "human"}]},
        headers={"Authorization": f"Bearer {stack.api_key}"},
    )
    assert created.status_code == 201, created.text
    body = created.json()
    return [HumanSeat(body["id"], s["seat"], s["token"]) for s in body["seats"]]


def _act_once(base: str, seats: list[HumanSeat], rng: random.Random) -> int:
    """One request by whichever seat is asked; the version after it."""
    for seat in seats:
        headers = {"Authorization": f"Bearer {seat.token}"}
        seen = httpx.get(f"{base}/v1/games/{seat.game_id}", headers=headers).json()
        request = next_request(seat, seen, rng)
        if request is not None:
            path, body = request
            answer = httpx.post(base + path, json=body, headers=headers)
            assert answer.status_code == 200, answer.text
            return int(answer.json()["version"])
    raise AssertionError("nobody is asked")


def test_a_dropped_feed_resumes_with_what_happened_meanwhile(page: Page, stack: Stack) -> None:
    seats = _two_person_game(stack)
    game_id = seats[0].game_id
    feeds = _feeds(page)
    page.goto(f"/web/table.html#{game_id}/watch")
    expect(page.locator("#feed-state")).to_have_attribute("data-state", "live")
    rng = random.Random(4)
    for _ in range(3):
        version = _act_once(stack.base, seats, rng)
    page.wait_for_function(f"() => Number(document.body.dataset.version) >= {version}")

    # The page's API process dies; the game goes on through another one meanwhile.
    other = stack.processes.api(stack.env)
    try:
        stack.drop_api()
        expect(page.locator("#feed-state")).to_have_attribute("data-state", "reconnecting")
        for _ in range(4):
            missed = _act_once(other.base, seats, rng)
        # Checked while its API is down: once it is back the page may catch up at once.
        assert _page_version(page) < missed
    finally:
        stack.processes.stop(other.proc)
        stack.restart_api()

    # Back: the page catches up without a reload, and follows on live.
    page.wait_for_function(
        f"() => Number(document.body.dataset.version) >= {missed}", timeout=30_000
    )
    expect(page.locator("#feed-state")).to_have_attribute("data-state", "live")
    version = _act_once(stack.base, seats, rng)
    page.wait_for_function(f"() => Number(document.body.dataset.version) >= {version}")
    # It resumed with a new ticket after the version it had, on the view feed (no polling).
    assert all("ticket=" in url and "feed=view" in url for url in feeds), feeds
    assert any("after_version=" in url for url in feeds[1:]), feeds
