"""What a person does in the web client, as steps the browser tests share: create a game in
the lobby, and play a seat to the end by clicking the table's legal moves."""

from __future__ import annotations

import random
from collections.abc import Callable

from playwright.sync_api import Page, expect

ENDED = ("finished", "aborted", "abandoned")


def create_in_lobby(
    page: Page,
    game: str,
    seats: list[str],
    options: dict[str, str] | None = None,
    turn_seconds: int | None = None,
    names: list[str] | None = None,
    visibility: str = "unlisted",
    players: list[str] | None = None,
) -> str:
    """Fill the lobby's form (seat kinds as the form names them: human, open, random,
    greedy, expert; each person's seat's name and player id; who may watch: unlisted,
    public or private) and create the game; returns its id."""
    page.goto("/web/")
    page.get_by_label("Game", exact=True).select_option(game)
    while page.locator(".seat-row").count() < len(seats):
        page.get_by_role("button", name="Add a seat").click()
    while page.locator(".seat-row").count() > len(seats):
        page.get_by_role("button", name="Remove the last seat").click()
    for index, kind in enumerate(seats):
        page.get_by_label(f"Seat {index}", exact=True).select_option(kind)
    for index, name in enumerate(names or []):
        page.get_by_label(f"Seat {index} name", exact=True).fill(name)
    for index, player in enumerate(players or []):
        page.get_by_label(f"Seat {index} player id", exact=True).fill(player)
    page.locator(f'input[name="visibility"][value="{visibility}"]').check()
    for key, value in (options or {}).items():
        page.locator(f'[data-option="{key}"]').fill(value)
    if turn_seconds is not None:
        page.get_by_label("Seconds per turn").fill(str(turn_seconds))
    page.get_by_role("button", name="Create the game").click()
    expect(page.get_by_role("heading", name="Game created")).to_be_visible()
    link = page.locator("#created a").last  # "Watch": table.html#<id>/watch
    href = link.get_attribute("href") or ""
    return href.split("#", 1)[1].split("/", 1)[0]


def state(page: Page) -> tuple[str, str, int]:
    """(status, what this seat is asked for, version) as the table page shows them."""
    body = page.locator("body")
    version = body.get_attribute("data-version") or "0"
    return (
        body.get_attribute("data-status") or "",
        body.get_attribute("data-awaiting-me") or "",
        int(version),
    )


def wait_for_my_turn(page: Page, timeout_ms: int = 60_000) -> None:
    page.wait_for_function(
        """() => {
            const b = document.body.dataset;
            return ["finished", "aborted", "abandoned"].includes(b.status)
                || b.awaitingMe === "move" || b.awaitingMe === "commit";
        }""",
        timeout=timeout_ms,
    )


def play_to_the_end(
    page: Page,
    rng: random.Random,
    on_turn: Callable[[int], None] | None = None,
    max_turns: int = 2000,
) -> int:
    """Click a random legal move (a drawn card, location or button of the table) whenever
    this seat is asked, until the game is over; returns the number of clicks."""
    for clicks in range(max_turns):
        wait_for_my_turn(page)
        status, _, version = state(page)
        if status in ENDED:
            return clicks
        moves = page.locator("#table [data-move]:enabled")
        try:
            moves.first.wait_for(timeout=10_000)
        except Exception as exc:
            table = page.locator("#table").inner_html()[:3000]
            raise AssertionError(
                f"asked to act ({state(page)}) but nothing to click; the table:\n{table}"
            ) from exc
        count = moves.count()
        chosen = moves.nth(rng.randrange(count))
        if clicks == 0:  # the first one with the keyboard: every move is reachable so
            chosen.focus()
            page.keyboard.press("Enter")
        else:
            chosen.click()
        if on_turn is not None:
            on_turn(clicks + 1)
        # The act answers with the new view; the page shows it (or says why it was refused).
        page.wait_for_function(
            f"""() => Number(document.body.dataset.version) > {version}
                || !document.getElementById("error").hidden""",
        )
        error = page.locator("#error")
        assert error.is_hidden(), error.inner_text()
    raise AssertionError("the game did not end")


def play_together(pages: list[Page], rng: random.Random, max_clicks: int = 3000) -> int:
    """Several people at one table, each in a browser of their own: whoever is asked
    clicks a random legal move, until every page shows the game over; the clicks."""
    clicks = 0
    while clicks < max_clicks:
        states = [state(p) for p in pages]
        if all(status in ENDED for status, _, _ in states):
            return clicks
        acted = False
        for p, (status, asked, version) in zip(pages, states, strict=True):
            if status in ENDED or asked not in ("move", "commit"):
                continue
            moves = p.locator("#table [data-move]:enabled")
            if not moves.count():
                continue  # being redrawn: next round
            moves.nth(rng.randrange(moves.count())).click()
            clicks += 1
            acted = True
            p.wait_for_function(
                f"""() => Number(document.body.dataset.version) > {version}
                    || !document.getElementById("error").hidden"""
            )
            error = p.locator("#error")
            assert error.is_hidden(), error.inner_text()
        if not acted:
            pages[0].wait_for_timeout(100)
    raise AssertionError("the game did not end")
