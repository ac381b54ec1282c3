"""The TypeScript SDK's browser bundle (`dist/stakeout.browser.js`, esbuild) in Debian's
headless Chromium, driven by Playwright, against a real `stakeout run`: a page served at the
server's own origin (Playwright answers its two files; every /v1 request goes to the real
server) imports the bundle and plays games with it, by long poll and on the live view feed
(fetch streams), and checks a signature with Web Crypto. No Node API could run there."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Route, sync_playwright

from tests.clients.conftest import Server
from tests.clients.test_typescript_client import TYPESCRIPT_SDK, _npm
from tests.helpers import API_KEY

CHROMIUM = Path(os.environ.get("STAKEOUT_CHROMIUM", "/usr/bin/chromium"))
BUNDLE = TYPESCRIPT_SDK / "dist" / "stakeout.browser.js"
PAGE = """<!doctype html><meta charset="utf-8"><title>stakeout SDK</title>
<script type="module">
import * as sdk from "./stakeout.browser.js";
window.sdk = sdk;
document.title = "ready";
</script>"""

# Plays one game in the page with the bundle: one human seat against a bot, every turn the
# first legal move, until the game is over.
PLAY = """async ({ baseUrl, apiKey, kind, live, options }) => {
  const { Stakeout, human, bot, verifySignature, sign, RevealMismatch } = window.sdk;
  const api = new Stakeout({ baseUrl, apiKey });
  const game = await api.createGame(kind, { seats: [human("Ann"), bot("random")], options });
  const seat = game.seat(0, { live });
  const actions = { move: 0, commit: 0, reveal: 0 };
  const wait = () => seat.waitForTurn({ timeoutMs: 60000 });
  for (let t = await wait(); t; t = await wait()) {
    actions[t.action]++;
    await seat.play(t.legal[0], { timeoutMs: 60000 });
  }
  await seat.close();
  const view = await seat.view();
  const signature = await sign("whsec", "{}", Math.floor(Date.now() / 1000));
  return {
    status: view.status, actions, requests: api.requests, live: seat.live,
    scores: view.result ? view.result.scores.length : 0,
    signed: await verifySignature("whsec", signature, "{}"),
    forged: await verifySignature("other", signature, "{}"),
    typed: typeof RevealMismatch === "function",
    node: typeof process !== "undefined",
  };
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make browser` installs Debian's chromium")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        yield launched
        launched.close()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "live", "options"),
    [("fbi", False, {}), ("feds", True, {}), ("bonnie_clyde", False, {"target": 10})],
)
def test_the_browser_bundle_plays_a_game_in_chromium(
    stakeout_run: Server, browser: Browser, kind: str, live: bool, options: dict[str, Any]
) -> None:
    bundled = _npm("run", "bundle")
    assert bundled.returncode == 0, bundled.stdout + bundled.stderr
    context = browser.new_context()
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))

        def serve(route: Route) -> None:
            if route.request.url.endswith("/stakeout.browser.js"):
                route.fulfill(body=BUNDLE.read_text(), content_type="text/javascript")
            else:
                route.fulfill(body=PAGE, content_type="text/html")

        page.route(f"{stakeout_run.base}/sdk-page/**", serve)
        page.goto(f"{stakeout_run.base}/sdk-page/index.html")
        page.wait_for_function("document.title === 'ready'", timeout=20_000)
        args = {"baseUrl": stakeout_run.base, "apiKey": API_KEY, "kind": kind, "live": live}
        result = page.evaluate(PLAY, {**args, "options": options})
    finally:
        context.close()
    assert not errors, errors
    assert result["status"] == "finished", result
    assert result["scores"] == 2
    assert result["node"] is False  # a browser page: no Node globals to lean on
    assert result["signed"] is True
    assert result["forged"] is False
    assert result["typed"] is True
    if kind != "bonnie_clyde":
        assert result["actions"]["commit"] > 0  # sealed steps, committed and revealed
    if live:
        assert result["live"] is True  # the view feed (a fetch stream) carried the game
        acts = sum(result["actions"].values()) + result["actions"]["commit"]
        assert result["requests"] <= acts + 5, result
