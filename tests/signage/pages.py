"""The sign page in headless Chromium with its websocket replaced: the page, its CSS and its script are
the real ones, served from this repository; the frames are sent by the test (``window.__send``)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from django.contrib.staticfiles import finders
from django.test import Client
from playwright.sync_api import Page, Route, sync_playwright

from common.credentials import screen_token_issue
from signage.currency import ScreenContent
from signage.selectors import signage_snapshot
from signage.snapshots import SignageProgressiveSerializer
from tests.browser import chromium_launch
from tests.factories import LevelFactory, ProgressiveFactory, ProgressiveMachineFactory, SlotMachineFactory

T = TypeVar("T")

ORIGIN = "http://sign.test"

FAKE_SOCKET = """
window.WebSocket = function (url) { window.__socket = this; this.readyState = 1; };
window.WebSocket.OPEN = 1;
window.WebSocket.prototype.close = function () {};
window.__frames = 0;
window.__send = function (frame) {
  window.__frames += 1;
  frame.n = window.__frames;
  window.__socket.onmessage({ data: JSON.stringify(frame) });
};
"""


def page_open(page: Page, html: str, path: str, *, sign: bool = True) -> None:
    """Serves ``html`` at ``path`` and the static files from disk; every other request is refused.
    ``sign``: the page is a sign's, whose socket the test replaces (waited for)."""

    def serve(route: Route) -> None:
        url = route.request.url
        if "/static/" in url:
            name = url.split("/static/", 1)[1]
            kind = "text/css" if name.endswith(".css") else "application/javascript"
            route.fulfill(status=200, body=Path(finders.find(name)).read_text(), content_type=kind)
        else:
            route.fulfill(status=200, body=html, content_type="text/html; charset=utf-8")

    page.unroute("**")
    page.route(f"{ORIGIN}/**", serve)
    page.add_init_script(FAKE_SOCKET)
    page.goto(f"{ORIGIN}{path}")
    if sign:
        page.wait_for_function("() => window.__socket && window.__socket.onmessage")


class BrowserThread:
    """One headless Chromium for a test module, driven from a thread of its own: Playwright's sync API
    runs an event loop in the thread that starts it, where Django refuses the ORM, so the tests keep
    the database in theirs and hand the browser work with ``run``."""

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="browser")
        self.pool.submit(self._start).result()

    def _start(self) -> None:
        self.playwright = sync_playwright().start()
        self.browser = chromium_launch(self.playwright)

    def _stop(self) -> None:
        self.browser.close()
        self.playwright.stop()

    def run(self, work: Callable[[Page], T], viewport: dict) -> T:
        """``work(page)`` on a new page of ``viewport`` that fails on a console error or a request to
        another host; the page is closed afterwards."""

        def on_page() -> T:
            page = self.browser.new_page(viewport=viewport)
            errors: list[str] = []
            page.on("console", lambda message: message.type == "error" and errors.append(message.text))
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.on("request", lambda request: request.url.startswith(ORIGIN) or errors.append(request.url))
            try:
                result = work(page)
            finally:
                page.close()
            assert errors == [], "console errors or requests to another host"
            return result

        return self.pool.submit(on_page).result()

    def close(self) -> None:
        self.pool.submit(self._stop).result()
        self.pool.shutdown()


# The casino's progressives as a sign shows them: name, then per level its name, current and reset amount
# in euros and, for a mystery level, the amount it must hit by. The largest prize (Super Spin) first.
FLOOR = [
    ("Super Spin", [("Super Spin", 1_151_748_00, 1_000_000_00, None)]),
    (
        "Grease",
        [
            ("Grand", 5_873_41, 5_000_00, None),
            ("Major", 1_204_99, 1_000_00, None),
            ("Minor", 233_10, 200_00, None),
            ("Mini", 61_75, 50_00, None),
            ("Bonus", 12_40, 10_00, None),
        ],
    ),
    ("Venezia Mystery", [("Must Hit By €1,000", 612_34, 500_00, 1_000_00)]),
    (
        "Diamond Vault",
        [("Grand", 1_523_47, 1_000_00, None), ("Major", 260_00, 250_00, None), ("Minor", 55_80, 50_00, None)],
    ),
    ("Ainsworth VEN-0001", [("Major", 517_26, 500_00, None), ("Minor", 108_90, 100_00, None)]),
    ("Caribbean Stud", [("Royal Flush", 10_000_00, 10_000_00, None)]),
    ("Jumbo 7", [("Jumbo 7", 25_431_95, 25_000_00, None)]),
    ("Ainsworth VEN-0002", [("Major", 503_02, 500_00, None), ("Minor", 101_11, 100_00, None)]),
]


def floor_create(venue=None) -> list[int]:
    """``FLOOR`` in the database, each progressive with a machine in service (its link up); their ids in
    ``FLOOR``'s order."""

    ids = []
    for name, levels in FLOOR:
        progressive = ProgressiveFactory(name=name)
        for position, (level_name, cents, reset_cents, limit_cents) in enumerate(levels, start=1):
            LevelFactory(
                progressive=progressive,
                name=level_name,
                position=position,
                current_mc=cents * 1000,
                reset_mc=reset_cents * 1000,
                limit_mc=None if limit_cents is None else limit_cents * 1000,
                mystery=limit_cents is not None,
            )
        machine = SlotMachineFactory(**({"room__venue": venue} if venue is not None else {}))
        ProgressiveMachineFactory(progressive=progressive, machine=machine)
        ids.append(progressive.id)
    return ids


def sign_render(screen, progressive_ids: list[int]) -> tuple[str, str, list[dict]]:
    """The screen's page (as the server renders it, in the screen's language) and the snapshot frame's
    jackpots for ``progressive_ids``, as the server's snapshot builds them."""
    token = screen_token_issue(screen)
    path = f"/signage/{screen.slug}/?token={token}"
    html = Client().get(path).content.decode()
    content = ScreenContent(tuple(sorted(progressive_ids)), "EUR")
    return html, path, list(SignageProgressiveSerializer(signage_snapshot(content), many=True).data)


def snapshot_send(page: Page, jackpots: list[dict]) -> None:
    page.evaluate("jackpots => window.__send({type: 'snapshot', jackpots: jackpots})", jackpots)
