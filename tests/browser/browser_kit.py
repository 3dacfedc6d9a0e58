"""What the browser tests share: Debian's Chromium through playwright, the service with virtual
tables, screenshots under test-artifacts/browser/, and waits on what a page shows."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from conftest import REPO, require_executable
from support.service import with_virtual_table

ARTIFACTS = REPO / "test-artifacts" / "browser"
PROXY_SCRIPT = REPO / "tests" / "support" / "dropping_proxy.py"
# playwright cannot download its own browser here: it drives Debian's chromium
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
SCREEN = {"viewport": {"width": 1440, "height": 960}}
WAIT_MS = 20_000
POLL_MS = 50  # how often a wait asks the page again


@contextmanager
def chromium() -> Iterator:
    """A headless Chromium; skips without it locally, fails under CI (tests/conftest.py).

    Every page it opens is watched for Content Security Policy violations (Chromium reports
    each on the page's console): a test that saw one fails, naming it."""
    path = require_executable("chromium", "Debian: apt-get install chromium")
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=path, headless=True, args=CHROMIUM_ARGS
        )
        violations = watch_csp(browser)
        try:
            yield browser
        except BaseException:
            keep_what_the_pages_showed(browser)
            raise
        else:
            assert violations == [], f"the pages broke their Content Security Policy: {violations}"
        finally:
            browser.close()


def watch_csp(browser) -> list[str]:
    """The CSP violations of every page `browser` opens from now on (a list that grows)."""
    violations: list[str] = []

    def on_console(message) -> None:
        if "Content Security Policy" in message.text:
            violations.append(f"{message.page.url if message.page else '?'}: {message.text}")

    new_context = browser.new_context

    def watched_context(**options):
        context = new_context(**options)
        context.on("console", on_console)
        new_page = context.new_page

        def polled_page():
            page = new_page()
            page.wait_for_function = polled_wait(page)
            return page

        context.new_page = polled_page
        return context

    browser.new_context = watched_context  # the tests open every page in a context of theirs
    return violations


def polled_wait(page):
    """`page.wait_for_function` that works under the pages' CSP: playwright's own evaluates
    its predicate with the page's `eval`, which `script-src 'self'` refuses; this one asks
    through the DevTools protocol (`page.evaluate_handle`, outside the page's CSP) until the
    expression holds, as often as playwright polls."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    def wait_for_function(expression: str, arg=None, timeout: float | None = None, polling=None):
        limit_s = (WAIT_MS if timeout is None else timeout) / 1000
        deadline = time.monotonic() + limit_s
        while True:
            handle = page.evaluate_handle(expression, arg)
            if handle.evaluate("value => !!value"):
                return handle
            handle.dispose()
            if time.monotonic() > deadline:
                raise PlaywrightTimeout(f"{expression[:300]} did not hold within {limit_s:g} s")
            page.wait_for_timeout(POLL_MS)

    return wait_for_function


def keep_what_the_pages_showed(browser) -> None:
    """When a test fails, a picture of every open page (failed-<test>-<n>.png), to see why."""
    test = os.environ.get("PYTEST_CURRENT_TEST", "test").split(" ")[0].rsplit("::", 1)[-1]
    pages = [page for context in browser.contexts for page in context.pages]
    for number, page in enumerate(pages, 1):
        with contextlib.suppress(Exception):  # a page that is gone has nothing to show
            screenshot(page, f"failed-{test}-{number}")


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.evaluate("window.scrollTo(0, 0)")  # the sticky header stays on top of the picture
    page.screenshot(path=str(path), full_page=True)
    return path


@contextmanager
def virtual_tables(options, people: tuple[str, ...] = (), seed: int = 0) -> Iterator:
    """The service with one virtual table (demo-1: ann, bob, cy); `people` hold their seats
    from the start (their bots never move); once its detector has learnt the empty ship."""
    with with_virtual_table(options, seed=seed, people=people, baseline=True) as running:
        yield running


# The pages keep no buffer of what they received: a test that needs it records the page's
# `bosun:snapshot` events (each arrival, ms since epoch, with the feed it brought) from the
# start (`page.add_init_script(RECORD_SNAPSHOTS_JS)` before `goto`) into window.testArrivals.
RECORD_SNAPSHOTS_JS = """
window.testArrivals = [];
window.addEventListener("bosun:snapshot", (e) => window.testArrivals.push({
  at: e.detail.at,
  feed: (e.detail.snapshot.feed || []).map((f) => f.at_ms + "|" + f.text),
}));
"""


def document_width(page) -> int:
    """How wide the page's document is (px): wider than the viewport means sideways scrolling."""
    return page.evaluate("document.documentElement.scrollWidth")


def last(page) -> dict:
    """The snapshot the page shows now (its scripts keep it in window.bosunLast)."""
    return page.evaluate("window.bosunLast")


def wait_until(page, condition_js: str, timeout_ms: int = WAIT_MS) -> dict:
    """Wait until `condition_js` (an expression over `s`, the page's snapshot) holds; the
    snapshot it held for (not a later one: a busy machine may let the next arrive meanwhile)."""
    found = page.wait_for_function(
        f"(() => {{ const s = window.bosunLast; return s && ({condition_js}) ? s : null; }})()",
        timeout=timeout_ms,
    )
    return found.json_value()


class DroppingProxy:
    """A TCP proxy on loopback in front of the service whose connections can be cut: what a
    phone sees when its WiFi drops (open streams die, new connections are refused). It runs
    in a process of its own (tests/support/dropping_proxy.py), off the interpreter lock the
    service's event loop needs in this one."""

    def __init__(self, upstream_port: int) -> None:
        self._process = subprocess.Popen(
            [sys.executable, str(PROXY_SCRIPT), str(upstream_port)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.port = int(self._answer("its port"))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _answer(self, what: str) -> str:
        assert self._process.stdout is not None
        line = self._process.stdout.readline().strip()
        if not line:
            raise RuntimeError(f"the dropping proxy stopped before saying {what}")
        return line

    def _say(self, command: str) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(command + "\n")
        self._process.stdin.flush()
        answer = self._answer(f"{command} done")
        if answer != "ok":
            raise RuntimeError(f"the dropping proxy answered {answer!r} to {command}")

    def drop(self) -> None:
        """Cut every open connection and refuse new ones until `restore`."""
        self._say("drop")

    def restore(self) -> None:
        self._say("restore")

    def close(self) -> None:
        if self._process.stdin is not None and not self._process.stdin.closed:
            self._process.stdin.close()  # the end of its commands: it cuts all and stops
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()
