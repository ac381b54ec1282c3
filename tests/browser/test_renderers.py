"""The game renderers (service/web/games/<game>.js) on real views, in Chromium.

For each game a seat plays a whole game over HTTP against random bots (seeded choices, every
sealed step committed and revealed), and every view where the seat was awaited is drawn by
the game's renderer: each item of `legal` must be exactly one clickable <button> whose
`data-move` is the move's canonical JSON and which has a readable name, no button may offer
anything else, clicking one hands `act` that very move, and the table fits a 360 px screen.
A spectator's view has no buttons. Every event of the finished game's replay is put in
words by the game's own describeEvent (not the generic fallback).
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser

from tests.browser.conftest import PHONE, screenshot
from tests.browser.stack import Stack
from tests.helpers import act, auth, create, view, wait_for

# game kind -> (game name, seats, options): small tables, short games, each city's powers.
RANDOM = {"type": "bot", "level": "random"}
GAMES: dict[str, tuple[str, list[dict[str, Any]], dict[str, Any]]] = {
    "fbi": ("fbi", [{"type": "human"}, RANDOM, RANDOM], {}),
    "feds": ("feds", [{"type": "human"}, RANDOM], {"city": "new-orleans"}),
    "feds-detroit": (
        "feds",
        [{"type": "human"}, RANDOM, RANDOM],
        {"city": "detroit", "sirens": True},
    ),
    "bonnie_clyde": ("bonnie_clyde", [{"type": "human"}, RANDOM], {"target": 10}),
}


def canonical(move: Any) -> str:
    return json.dumps(move, sort_keys=True, separators=(",", ":"))


def play_whole_game(
    client: httpx.Client, kind: str, seed: int
) -> tuple[str, str, list[dict[str, Any]], dict[str, Any]]:
    """Seat 0 plays to the end with random legal moves; the views where it was awaited."""
    game, seats, options = GAMES[kind]
    created = create(client, game, seats, options)
    game_id, token = created["id"], created["seats"][0]["token"]
    rnd = random.Random(seed)
    kept: dict[int, tuple[dict[str, Any], str]] = {}
    awaited: list[dict[str, Any]] = []
    last_version = -1
    for _ in range(2000):
        current = wait_for(lambda: _my_turn_or_end(client, game_id, token), timeout=60)
        if current["status"] != "active":
            return game_id, token, awaited, current
        mine = next(a for a in current["awaiting"] if a["seat"] == current["you"])
        if mine["action"] in ("move", "commit") and current["version"] != last_version:
            awaited.append(current)
            last_version = current["version"]
        move = rnd.choice(current["legal"]) if current["legal"] else {}
        answer = act(client, game_id, token, 0, mine, move, kept)
        assert answer.status_code in (200, 201), answer.text
        if mine["action"] == "commit":
            step = mine["step"]
            wait_for(lambda step=step: _committed(client, game_id, token, step), timeout=60)
    raise AssertionError(f"{game} did not end")


def _my_turn_or_end(client: httpx.Client, game_id: str, token: str) -> dict[str, Any] | None:
    current = view(client, game_id, token)
    if current["status"] != "active":
        return current
    if any(a["seat"] == current["you"] for a in current["awaiting"]):
        return current
    return None


def _committed(client: httpx.Client, game_id: str, token: str, step: str) -> bool:
    current = view(client, game_id, token)
    return current["status"] != "active" or not any(
        a["seat"] == current["you"] and a["action"] == "commit" and a["step"] == step
        for a in current["awaiting"]
    )


# Draws one view with the game's module into a fresh root, clicks the first move button
# (if any) and answers what was drawn and what `act` received.
RENDER = """async ({game, view, rules, mode}) => {
  const module = await import(`/web/games/${game}.js`);
  if (module.stylesheet && !document.querySelector(`link[href="/web/${module.stylesheet}"]`)) {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = `/web/${module.stylesheet}`;
    const loaded = new Promise((resolve) => link.addEventListener("load", resolve));
    document.head.append(link);
    await loaded;
  }
  document.body.replaceChildren();
  const root = document.createElement("main");
  document.body.append(root);
  const acts = [];
  module.renderTable(root, {view, rules, mode, act: async (move) => { acts.push(move); }});
  const buttons = [...root.querySelectorAll("[data-move]")].map((node) => ({
    move: node.dataset.move,
    tag: node.tagName,
    label: node.getAttribute("aria-label") || "",
  }));
  const drawn = {
    text: root.innerText,
    labels: [...root.querySelectorAll("[aria-label]")].map((node) => node.ariaLabel),
    agents: [...root.querySelectorAll(".fbi-agent")].map((node) => node.textContent),
    powerNamePx: [...root.querySelectorAll(".feds-cardname")].map(
      (node) => parseFloat(getComputedStyle(node).fontSize)),
    facesPerHandGroup: [...root.querySelectorAll(".bc-handgroup")].map(
      (node) => node.querySelectorAll(".bc-card").length),
    setLabels: [...root.querySelectorAll(".bc-set .gt-label")].map((node) => node.innerText),
    setCardNumbers: [...root.querySelectorAll(".bc-set .bc-card")].map((node) => node.innerText),
    moveTypes: [...root.querySelectorAll("[data-move]")].map(
      (node) => JSON.parse(node.dataset.move).type),
  };
  const first = root.querySelector("button[data-move]");
  if (first) { first.click(); await new Promise((resolve) => setTimeout(resolve, 0)); }
  return {buttons, acts, reads: drawn, width: document.documentElement.scrollWidth};
}"""

# An FBI agent shows its colour's name (not an initial: black was "K").
AGENT_FACES = {"red", "yellow", "blue", "green", "black", "2×", "?"}


def assert_reads_well(drawn: dict[str, Any]) -> None:
    """What a drawn table says, in words a person reads (issue #31, item 16)."""
    for label in drawn["labels"]:
        assert not re.search(r"\b(\w+) \1\b", label, re.IGNORECASE), label  # "Redeploy Redeploy"
        assert not re.search(r"\ball 1 ", label), label  # "Arrest all 1 orange criminal"
    assert not re.search(r"\bpts\b", drawn["text"]), drawn["text"]  # "1 pts"
    assert not re.search(r"\b\d+ on the table", drawn["text"]), drawn["text"]  # a card count?
    assert set(drawn["agents"]) <= AGENT_FACES, drawn["agents"]
    assert all(px >= 9 for px in drawn["powerNamePx"]), drawn["powerNamePx"]
    # Like cards in a hand are one face with its name, the others' edges behind it.
    assert all(faces == 1 for faces in drawn["facesPerHandGroup"]), drawn["facesPerHandGroup"]
    # The Feds' field in words ("Field: 9 agents: closed ..."), not "Field 9/7" (issue #39).
    assert not re.search(r"Field \d+/", drawn["text"]), drawn["text"]
    # A meld or layoff names its town and shows each card's number, whoever's table it is.
    assert all(re.fullmatch(r"(Meld|Layoff): \S.*", label) for label in drawn["setLabels"])
    assert all(number.strip().isdigit() for number in drawn["setCardNumbers"])
    # A Ted Hinton's plays come after the ordinary moves (meld, lay off, discard).
    types = drawn["moveTypes"]
    ordinary = [i for i, t in enumerate(types) if t in ("bc.meld", "bc.lay_off", "bc.discard")]
    extras = [i for i, t in enumerate(types) if t.startswith("bc.ted_hinton_")]
    assert not ordinary or not extras or min(extras) > max(ordinary), types


def assert_sentence(text: str) -> None:
    """An event in words: one sentence that may begin with "You", never "You" inside it."""
    assert not text[0].islower(), text
    assert not re.search(r".\bYou\b", text), text  # "Turn 1 began; You hold…"
    assert "for it." not in text, text  # "a bot moved for it"


DESCRIBE = """async ({game, records, view}) => {
  const module = await import(`/web/games/${game}.js`);
  const common = await import("/web/games/common.js");
  return records.map((record) => ({
    type: record.event.type,
    text: module.describeEvent(record, view),
    generic: common.genericEvent(record.event),
  }));
}"""


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_every_legal_move_is_one_button_and_every_event_has_words(
    browser: Browser, stack: Stack, kind: str
) -> None:
    game = GAMES[kind][0]
    with httpx.Client(base_url=stack.base, timeout=30) as client:
        game_id, token, awaited, final = play_whole_game(client, kind, seed=17)
        rules = client.get(f"/v1/rules/{game}").json()
        spectator = view(client, game_id)
        replay = wait_for(lambda: _replay(client, game_id), timeout=60)
        seat_events = client.get(
            f"/v1/games/{game_id}/events", params={"limit": 500}, headers=auth(token)
        )
    assert seat_events.status_code == 200, seat_events.text
    assert awaited, "the seat was never awaited"
    context = browser.new_context(base_url=stack.base, viewport=PHONE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto("/web/")
        ted_with_ordinary = 0
        for current in awaited:
            drawn = page.evaluate(
                RENDER, {"game": game, "view": current, "rules": rules, "mode": "play"}
            )
            legal = [canonical(move) for move in current["legal"]]
            moves = [button["move"] for button in drawn["buttons"]]
            phase = current["state"].get("phase")
            assert sorted(moves) == sorted(legal), (phase, moves, legal)
            assert all(b["tag"] == "BUTTON" and b["label"].strip() for b in drawn["buttons"])
            assert [canonical(move) for move in drawn["acts"]] == moves[:1]
            assert drawn["width"] <= PHONE["width"], (phase, drawn["width"])
            assert_reads_well(drawn["reads"])
            types = drawn["reads"]["moveTypes"]
            ted_with_ordinary += "bc.discard" in types and any(
                t.startswith("bc.ted_hinton_") for t in types
            )
        if game == "bonnie_clyde":  # the order was checked where it matters
            assert ted_with_ordinary, "no turn offered a Ted Hinton besides a discard"
        watched = page.evaluate(
            RENDER, {"game": game, "view": spectator, "rules": rules, "mode": "watch"}
        )
        assert watched["buttons"] == []
        assert watched["acts"] == []
        if game == "bonnie_clyde":  # the finished game's melds and layoffs, on every table
            assert watched["reads"]["setLabels"], watched["reads"]["text"]
        assert watched["width"] <= PHONE["width"]
        assert_reads_well(watched["reads"])
        page.evaluate(
            RENDER,
            {"game": game, "view": awaited[len(awaited) // 2], "rules": rules, "mode": "play"},
        )
        screenshot(page, f"renderer-{kind}")
        for records, seen_by in (
            (replay["events"], spectator),
            (seat_events.json()["events"], final),
        ):
            described = page.evaluate(DESCRIBE, {"game": game, "records": records, "view": seen_by})
            assert len(described) == len(records)
            for item in described:
                assert item["text"], item
                assert item["text"].strip(), item
                assert_sentence(item["text"])
                if item["type"].startswith(f"{prefix(game)}."):
                    assert item["text"] != item["generic"], item
        assert not errors, errors
    finally:
        context.close()


def prefix(game: str) -> str:
    return {"bonnie_clyde": "bc"}.get(game, game)


def _replay(client: httpx.Client, game_id: str) -> dict[str, Any] | None:
    answer = client.get(f"/v1/games/{game_id}/replay")
    if answer.status_code != 200:
        return None
    return dict(answer.json())
