"""Browser tests: Debian's Chromium driven by Playwright against the real app.

The app runs as in production: an embedded Valkey, an API process and an RQ worker that
plays the bots (`tests/browser/stack.py`), one stack per test process. Chromium is the
system's (`/usr/bin/chromium`, installed by `make browser` / `.ci/run`); Playwright never
downloads a browser. Without it these tests fail, they do not skip.

Screenshots (PNG, named by test and width) go to a folder the test session creates under
pytest's temporary folder (`<basetemp>/screenshots0/`; `--basetemp` chooses where), or to
`STAKEOUT_SCREENSHOTS` when set: never into the repository.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Page,
    Playwright,
    ViewportSize,
    expect,
    sync_playwright,
)

from tests.browser.stack import Stack, running_stack

# `expect` waits as long as the pages' own default (set below): its 5 s default is a timing
# assumption a loaded 2-core machine breaks (an API process restarted, a worker importing).
expect.set_options(timeout=20_000)

CHROMIUM = Path(os.environ.get("STAKEOUT_CHROMIUM", "/usr/bin/chromium"))
PHONE: ViewportSize = {"width": 360, "height": 780}
LAPTOP: ViewportSize = {"width": 1280, "height": 860}


_screenshots: list[Path] = []  # the session's folder, once made


@pytest.fixture(scope="session", autouse=True)
def screenshots_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    chosen = os.environ.get("STAKEOUT_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    _screenshots[:] = [folder]
    return folder


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("web-stack")) as running:
        yield running


# Module scope, not session: while Playwright's sync API is open it keeps an asyncio loop
# running in the thread, and every later test in this process that calls asyncio.run()
# would fail. Closed when the process moves on to another module.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: the browser tests need Debian's chromium package "
            "(`make browser` installs it)"
        )
    launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
    yield launched
    launched.close()


@pytest.fixture
def context(browser: Browser, stack: Stack) -> Iterator[BrowserContext]:
    """A fresh browser profile (its own localStorage) holding the API key."""
    ctx = browser.new_context(base_url=stack.base, viewport=LAPTOP)
    ctx.set_default_timeout(20_000)
    ctx.add_init_script(
        f"localStorage.getItem('stakeout.apiKey') || "
        f"localStorage.setItem('stakeout.apiKey', JSON.stringify({stack.api_key!r}))"
    )
    yield ctx
    ctx.close()


@pytest.fixture
def guest(browser: Browser, stack: Stack) -> Iterator[BrowserContext]:
    """Another person's browser: its own profile, no API key (an invite is all it has)."""
    ctx = browser.new_context(base_url=stack.base, viewport=PHONE)
    ctx.set_default_timeout(20_000)
    yield ctx
    ctx.close()


def _watched(opened: Page, errors: list[str]) -> Page:
    opened.on("pageerror", lambda error: errors.append(str(error)))
    return opened


@pytest.fixture
def page(context: BrowserContext) -> Iterator[Page]:
    errors: list[str] = []
    yield _watched(context.new_page(), errors)
    assert not errors, f"the page threw: {errors}"


@pytest.fixture
def guest_page(guest: BrowserContext) -> Iterator[Page]:
    errors: list[str] = []
    yield _watched(guest.new_page(), errors)
    assert not errors, f"the page threw: {errors}"


def screenshot(page: Page, name: str) -> list[Path]:
    """The page at 360 px and at 1280 px wide, full height, into the session's folder."""
    before = page.viewport_size or LAPTOP
    paths = []
    for size in (PHONE, LAPTOP):
        page.set_viewport_size(size)
        page.wait_for_timeout(150)  # a relayout
        path = _screenshots[0] / f"{name}-{size['width']}.png"
        page.screenshot(path=str(path), full_page=True)
        paths.append(path)
    page.set_viewport_size(before)
    return paths


def fits(page: Page) -> dict[int, int]:
    """The document's width at 360 px and at 1280 px wide (no horizontal scrollbar when each
    is at most the viewport's); the viewport is put back."""
    before = page.viewport_size or LAPTOP
    widths = {}
    for size in (PHONE, LAPTOP):
        page.set_viewport_size(size)
        page.wait_for_timeout(150)
        widths[size["width"]] = int(page.evaluate("document.documentElement.scrollWidth"))
    page.set_viewport_size(before)
    return widths


def assert_fits(page: Page) -> None:
    widths = fits(page)
    assert all(width <= viewport for viewport, width in widths.items()), widths
