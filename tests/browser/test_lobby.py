"""The lobby as a person meets it: it fits a phone, says each game and its options in words,
says when its saved key no longer works, lists each game with its time, seats and id, and
makes public and private games, which it can also abort (asked twice)."""

from __future__ import annotations

import re
import time
from datetime import datetime

import httpx
from playwright.sync_api import Page, expect

from tests.browser.clicking import create_in_lobby
from tests.browser.conftest import PHONE, assert_fits, screenshot
from tests.browser.stack import Stack

# The contract's machine names of the options and their values, as it spells them: never
# the words shown ("Chicago" is a word; "chicago" the machine's).
MACHINE = {"variant", "target", "city", "sirens", "base", "stacked", "chicago", "new-orleans"}


def test_the_lobby_fits_a_phone_and_says_each_game_in_words(page: Page) -> None:
    page.goto("/web/")
    choose = page.get_by_label("Game", exact=True)
    expect(choose).to_contain_text("Bonnie and Clyde")
    page.get_by_text("How this game is played").click()
    for game in ("fbi", "feds", "bonnie_clyde"):
        choose.select_option(game)
        expect(page.locator("#game-summary a[data-rules]")).to_have_attribute(
            "href", f"rules.html#{game}"
        )
        paragraphs = page.locator("#game-summary p").all_inner_texts()
        assert len(paragraphs) >= 4, paragraphs  # a few sentences, and the rules link
        shown = page.locator("#options label, #options .hint, #options option").all_inner_texts()
        assert shown, game
        for text in shown + paragraphs:
            assert "`" not in text, text
            assert "_" not in text, text
            assert text.strip() not in MACHINE, text
        assert "house_rules" not in " ".join(paragraphs)
        assert_fits(page)
        screenshot(page, f"lobby-{game}")


def test_the_rules_page_has_the_game_in_words_and_every_house_rule(
    page: Page, stack: Stack
) -> None:
    page.goto("/web/")
    page.get_by_label("Game", exact=True).select_option("feds")
    page.get_by_text("How this game is played").click()
    page.locator("#game-summary a[data-rules]").click()
    expect(page).to_have_url(f"{stack.base}/web/rules.html#feds")
    expect(page.locator("#title")).to_have_text("Rules of The Feds")
    house = httpx.get(f"{stack.base}/v1/rules/feds").json()["house_rules"]
    expect(page.locator("#house-rules li")).to_have_count(len(house))
    expect(page.locator("#house-rules")).to_contain_text(house[0]["text"])
    expect(page.locator("#how p").first).to_contain_text("Four locations")
    expect(page.locator("#options")).to_contain_text("City card")
    expect(page.locator("[data-rules-data]")).to_have_attribute("href", "/v1/rules/feds")
    assert_fits(page)
    screenshot(page, "rules-feds")


def test_a_saved_key_the_server_no_longer_knows_is_said_so(page: Page, stack: Stack) -> None:
    page.add_init_script(
        "localStorage.setItem('stakeout.apiKey', JSON.stringify('sk_of_an_earlier_run'))"
    )
    page.goto("/web/")
    problem = page.locator("#key-problem")
    expect(problem).to_be_visible()
    expect(problem).to_contain_text("The API key saved in this browser no longer works")
    expect(page.locator("#my-games")).to_contain_text("cannot be listed with the saved key")
    page.get_by_role("button", name="Create the game").click()
    expect(page.locator("#error")).to_contain_text("no longer works")
    assert_fits(page)
    screenshot(page, "lobby-stale-key")
    # The right key: the lobby says nothing more about it, and lists the key's games.
    page.get_by_label("API key", exact=True).fill(stack.api_key)
    page.get_by_role("button", name="Use this key").click()
    expect(problem).to_be_hidden()
    expect(page.locator("#my-games")).not_to_contain_text("cannot be listed")


def test_a_game_made_in_the_lobby_is_listed_at_once_with_its_time_seats_and_id(
    page: Page, stack: Stack
) -> None:
    before = time.time()
    game_id = create_in_lobby(
        page, "fbi", ["human", "open"], names=["Ann", ""], visibility="public"
    )
    # What was made is in sight, without scrolling for it.
    expect(page.locator('#created [data-play="0"]')).to_be_in_viewport()
    # Public games shows it without a reload.
    expect(page.locator(f'#public-games [data-game="{game_id}"]')).to_be_visible()
    row = page.locator(f'#my-games [data-game="{game_id}"]')
    expect(row).to_contain_text("Ann (you)")
    expect(row).to_contain_text("Seat 1 (open)")
    expect(row).to_contain_text(game_id)
    expect(row).to_contain_text("waiting for players")
    stamp = row.locator("time").get_attribute("datetime") or ""
    created = datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    assert before - 5 <= created <= time.time() + 5, (before, stamp)
    summary = httpx.get(f"{stack.base}/v1/games/{game_id}").json()
    assert summary["seats"][0]["name"] == "Ann"
    assert_fits(page)
    screenshot(page, "lobby-created-public")


def test_a_private_game_from_the_lobby_is_seen_by_its_players_and_key_only(
    page: Page, stack: Stack
) -> None:
    game_id = create_in_lobby(page, "bonnie_clyde", ["human", "random"], visibility="private")
    anyone = httpx.get(f"{stack.base}/v1/games/{game_id}")
    assert anyone.status_code == 403, anyone.text
    key = {"Authorization": f"Bearer {stack.api_key}"}
    assert httpx.get(f"{stack.base}/v1/games/{game_id}", headers=key).status_code == 200
    expect(page.locator(f'#my-games [data-game="{game_id}"]')).to_be_visible()
    expect(page.locator(f'#public-games [data-game="{game_id}"]')).to_have_count(0)


def test_a_game_made_by_mistake_is_aborted_after_a_second_click(page: Page, stack: Stack) -> None:
    game_id = create_in_lobby(page, "feds", ["human", "random"])
    row = page.locator(f'#my-games [data-game="{game_id}"]')
    expect(row).to_have_attribute("data-status", "active")
    row.get_by_role("button", name="Abort…").click()
    expect(row).to_contain_text("End this game now, with no result for anyone?")
    screenshot(page, "lobby-abort-asked")
    row.get_by_role("button", name="Keep it").click()
    expect(row.get_by_role("button", name="Abort…")).to_be_visible()
    assert httpx.get(f"{stack.base}/v1/games/{game_id}").json()["status"] == "active"
    row.get_by_role("button", name="Abort…").click()
    row.get_by_role("button", name="Abort the game").click()
    expect(row).to_have_attribute("data-status", "aborted")
    expect(row.get_by_role("button", name="Abort…")).to_have_count(0)
    assert httpx.get(f"{stack.base}/v1/games/{game_id}").json()["status"] == "aborted"


# Refused requests the pages make, each read back as the page says it.
PROBLEMS = """async (cases) => {
  const { api } = await import("/web/api.js");
  const said = [];
  for (const [path, options] of cases) {
    try { await api(path, options); said.push(["", ""]); }
    catch (problem) { said.push([problem.words, problem.title]); }
  }
  return said;
}"""


def test_a_refused_request_is_said_in_one_sentence(page: Page, stack: Stack) -> None:
    key = {"Authorization": f"Bearer {stack.api_key}"}
    seats = [{"type": "human"}, {"type": "open"}]
    created = httpx.post(
        f"{stack.base}/v1/games", json={"game": "fbi", "seats": seats}, headers=key
    ).json()
    code = next(s["invite"]["code"] for s in created["seats"] if s.get("invite"))
    assert httpx.post(f"{stack.base}/v1/invites/{code}", json={}).status_code == 201
    body = {"game": "fbi", "seats": seats}
    cases = [
        ["/v1/games", {"method": "POST", "body": body}],
        ["/v1/games", {"auth": "sk_unknown"}],
        [f"/v1/invites/{code}", {"method": "POST", "body": {}}],
        ["/v1/invites/abc", {}],
        [f"/v1/games/{created['id']}/replay", {}],
    ]
    page.goto("/web/")
    said = page.evaluate(PROBLEMS, cases)
    # The missing key and the wrong one are told apart (the problem's detail says which).
    assert said[0][0] == (
        "Creating a game needs an API key: no credential was sent "
        "(use 'Authorization: Bearer <API key>')."
    )
    assert said[1][0] != said[0][0]
    assert said[2][0] == "The game has started: its seats are settled."  # not twice
    assert said[3][0] == "The request is malformed."  # not the validator's regex
    assert said[4][0] == "The replay opens when the game is over."
    for words, title in said:
        assert words, said
        assert words[0].isupper(), words
        assert words.endswith("."), words
        assert not re.search(r"\.\s+[a-z]", words), words  # no "Title. lower-case detail"
        assert words.lower().count(title.lower()) <= 1, words


def test_the_lobby_bar_is_one_line_on_a_phone(page: Page) -> None:
    page.set_viewport_size(PHONE)
    page.goto("/web/")
    bar = page.locator("header.bar")
    expect(bar.get_by_role("link", name="API docs")).to_be_visible()
    boxes = bar.locator("> *").evaluate_all(
        "(items) => items.map((item) => item.getBoundingClientRect().toJSON())"
    )
    # The title and its three links side by side: every one starts above where any ends.
    assert max(b["top"] for b in boxes) < min(b["bottom"] for b in boxes), boxes
    assert_fits(page)
    screenshot(page, "lobby-bar")
