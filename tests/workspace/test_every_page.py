"""Every workspace page a floor manager reaches from ``/``, and every sign, in headless Chromium as an
Italian and an English user, at 1440x900 (signs also at 1920x1080 and 1080x1920), on the Venezia seed (both
venues, every room, the progressives and screens) with hits waiting, served by uvicorn. The pages are seen
at the narrower of the workspace's two screen sizes only: what fits at 1440 fits at 1920 (the layouts
grow to a max width, none is fixed wider), and each view costs a worker most of a minute.

A page fails on: the page or a box in it scrolling sideways, text past the box it sits in, a chart label
outside its chart, a console error, a request to another host, a 4xx/5xx answer; a sign fails without a
card after 10 s. Each language and size is a test of its own; the seed, the server and the browser are
made once for all of them (seeding alone takes seconds). A test gathers all the faults of its view and
reports them together; all of them also go to test-artifacts/every-page/faults.txt, with a screenshot of
each view that had one (of every view with EVERY_PAGE_SHOTS=1). One page per language and size, reused
from view to view."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlparse

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.utils import timezone
from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from common.credentials import screen_token_issue
from demo.seed import floor_seed, screens_seed
from demo.seed_progressives import progressives_seed
from demo.services.wide_area import link_seed
from floor.models import Room, SignageScreen, Venue
from floor.roles import FLOOR_MANAGER
from jackpots.models import Hit, Level, Progressive, ProgressiveMachine
from jackpots.services import change_propose, level_hit
from jackpots.services.hit_payment import hit_verify
from slots.models import MachineEvent, SlotMachine
from tests.browser import ARTIFACTS
from tests.staff_fixtures import game_event
from tests.workspace.test_browser import asgi_server
from tests.workspace.test_desk_browser import PASSWORD, chromium

# django_db: the test database is made for these tests too (they only read it, through the server).
pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.django_db]

SHOTS = ARTIFACTS / "every-page"
PAGE_SIZES = ((1440, 900),)
SIGN_SIZES = ((1440, 900), (1920, 1080), (1080, 1920))
USERS = (("giulia", "it"), ("admin", "en"))

# Run in the page: every fault the layout shows, as short sentences. A "box" is an element that clips or
# scrolls (overflow other than visible), a table cell, or main; text is a leaf element with text.
LAYOUT_FAULTS = r"""() => {
  const faults = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth + 1)
    faults.push(`page ${doc.scrollWidth} px wide in ${window.innerWidth}`);
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (el.classList.length ? '.' + [...el.classList].join('.') : '');
  for (const el of document.querySelectorAll('body *')) {
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden') continue;
    if (el.closest('svg')) continue;
    const scrolls = ['auto', 'scroll'].includes(style.overflowX);
    if ((scrolls || el.tagName === 'MAIN') && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
      faults.push(`${name(el)} scrolls sideways: ${el.scrollWidth} px in ${el.clientWidth}`);
    const leaf = el.children.length === 0 && el.textContent.trim() !== '';
    if (leaf && el.tagName !== 'OPTION' && el.tagName !== 'SCRIPT' && el.tagName !== 'STYLE') {
      const box = el.parentElement.closest('td, th, main, section, .card, .bank, figure, li, dd, button');
      if (!box) continue;
      const a = el.getBoundingClientRect(), b = box.getBoundingClientRect();
      if (a.width && (a.right > b.right + 1 || a.left < b.left - 1))
        faults.push(`text "${el.textContent.trim().slice(0, 30)}" past its box ${name(box)} by ` +
          `${Math.round(Math.max(a.right - b.right, b.left - a.left))} px`);
    }
  }
  for (const svg of document.querySelectorAll('svg.chart')) {
    const view = svg.viewBox.baseVal;
    for (const text of svg.querySelectorAll('text')) {
      const box = text.getBBox();
      if (box.x < view.x - 1 || box.y < view.y - 1 || box.x + box.width > view.x + view.width + 1 ||
          box.y + box.height > view.y + view.height + 1)
        faults.push(`chart label "${text.textContent.slice(0, 30)}" outside its chart`);
    }
  }
  return [...new Set(faults)].slice(0, 12);
}"""


# A frame (a sign's preview) must show all its content: nothing cut at its bottom or right.
FRAME_FAULTS = r"""() => {
  const doc = document.documentElement, faults = [];
  if (doc.scrollHeight > window.innerHeight + 1 || doc.scrollWidth > window.innerWidth + 1)
    faults.push(`content ${doc.scrollWidth}x${doc.scrollHeight} px in a ` +
      `${window.innerWidth}x${window.innerHeight} frame`);
  return faults;
}"""


def _seed() -> tuple[list[str], list[str]]:
    """The Venezia floor with hits waiting and a day of games; the paths to visit and the sign URLs."""
    floor_seed()
    progressives_seed()
    screens_seed()
    User.objects.create_superuser("admin", password=PASSWORD, first_name="Anna", last_name="Admin")
    giulia = User.objects.create_user(
        "giulia", password=PASSWORD, is_staff=True, first_name="Giulia", last_name="Rossi"
    )
    giulia.groups.add(Group.objects.get(name=FLOOR_MANAGER))
    now = timezone.now()
    members = ProgressiveMachine.objects.select_related("machine").order_by("id")
    hits = []
    for member in members[:: max(members.count() // 8, 1)][:8]:
        level = Level.objects.filter(progressive=member.progressive_id).order_by("id").first()
        hits.append(level_hit(level.pk, machine_id=member.machine_id))
    # One verified by one person, waiting for a second: the desk's longest label.
    hit_verify(max(hits, key=lambda hit: hit.amount_cents), giulia)
    # A few games on every tenth machine, in the last hours: the reports and their charts have rows.
    events = [
        game_event(machine, seq, now - timedelta(minutes=25 * seq), 250 * seq, 100)
        for machine in SlotMachine.objects.order_by("id")[::10]
        for seq in range(1, 4)
    ]
    MachineEvent.objects.bulk_create(events)
    paths = ["/hits/"]
    for venue in Venue.objects.order_by("code"):
        paths += [f"/venue/?venue={venue.code}&next=/hits/", f"/floor/{venue.code}/"]
        hit = Hit.objects.filter(machine__room__venue=venue).order_by("id").first()
        if hit:
            paths.append(f"/hits/{hit.pk}/verify/")
        for room in Room.objects.filter(venue=venue).order_by("number"):
            machine = room.machines.order_by("asset_number").first()
            paths.append(f"/floor/{venue.code}/{room.number}/#{machine.asset_number if machine else ''}")
        paths += ["/progressives/", "/signs/", "/dayclose/", "/floor/inventory/", "/floor/reports/liability/"]
        paths.append(f"/events/{venue.code}/{timezone.localdate().isoformat()}/")
    level = Level.objects.order_by("id").first()
    reports = ["/floor/reports/", "/floor/reports/games/", "/floor/reports/room-hours/"]
    # One change waiting for a second person: the approval queue and the level page have a row.
    change_propose(
        kind="topup", user=giulia, reason="Promozione di novembre", level=level, amount_mc=5_000_000
    )
    paths += [f"/progressives/levels/{level.pk}/", "/approvals/", *reports, "/floor/reports/level-history/"]
    paths += ["/tables/declarations/", "/admin/"]
    # This installation is also the link of a wide-area Jumbo 7 with two casinos: its reconciliation page
    # (a column per site) and the link's lists, which the admin's index links to.
    link_seed([("VEN", "Casinò di Venezia", "EUR"), ("LUG", "Casinò Lugano", "CHF")])
    paths.append("/admin/linkcentral/linkedpool/reconciliation/")
    # The public rules pages (no login needed; visited logged in, in the user's language): a progressive
    # with lines per level and the mystery one (a table one's: tests/signage).
    names = ("Grease", "Venezia Mystery")
    paths += [
        f"/rules/{pk}/" for pk in Progressive.objects.filter(name__in=names).values_list("id", flat=True)
    ]
    signs = [
        f"/signage/{screen.slug}/?token={screen_token_issue(screen)}"
        for screen in SignageScreen.objects.order_by("slug")
    ]
    return paths, signs


# Run in the page: every sign preview has loaded (a lazy frame out of sight is told to load now, so each
# one is checked, not only those that happened to load first).
PREVIEWS_LOADED = r"""() => [...document.querySelectorAll('.sign iframe')].every((frame) => {
  frame.loading = 'eager';
  const doc = frame.contentDocument;
  return doc !== null && doc.readyState === 'complete' && doc.location.href !== 'about:blank';
})"""


class Visit:
    """One page of one language and size, reused from view to view; every fault it sees goes to
    ``faults``, named with the view it came in (``where``): console errors, requests to other hosts,
    4xx/5xx answers, and what the layout checks find."""

    def __init__(self, page: Page, origin: str, label: str, faults: list[str]) -> None:
        self.page, self.origin, self.label, self.faults = page, origin, label, faults
        self.where = ""
        # What the view still waits for: requests of the page and its frames, sockets not yet answered.
        self.loading: set[object] = set()
        self.host = urlparse(origin).netloc
        page.on("console", lambda m: self.fault(f"console {m.text[:160]}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.fault(f"script error {e}"))
        page.on("request", self._requested)
        page.on("requestfinished", self._answered)
        page.on("requestfailed", self._answered)
        page.on("websocket", self._socket_opened)
        page.on(
            "response",
            lambda r: self.fault(f"{r.status} {r.url[len(origin) :][:80]}") if r.status >= 400 else None,
        )

    def _requested(self, request) -> None:
        if urlparse(request.url).netloc not in (self.host, ""):
            self.fault(f"request to {request.url[:80]}")
        self.loading.add(request)

    def _answered(self, request_or_socket) -> None:
        self.loading.discard(request_or_socket)

    def _socket_opened(self, socket) -> None:
        """A socket is waited for until its first frame (the floor map's snapshot) or its close."""
        self.loading.add(socket)
        socket.on("framereceived", lambda _frame: self._answered(socket))
        socket.on("close", self._answered)

    def fault(self, text: str) -> None:
        self.faults.append(f"{self.where}: {text}")

    def settle(self, seconds: float = 10) -> None:
        """Waits until the view stands still: every request it made answered, every socket it opened
        heard from. Late answers are then faults of this view, not the next one's."""
        deadline = time.monotonic() + seconds
        while self.loading:
            if time.monotonic() > deadline:
                self.fault(f"still loading after {seconds:.0f} s: {len(self.loading)} requests or sockets")
                self.loading.clear()
                return
            self.page.wait_for_timeout(20)  # Playwright hands over its events while it waits

    def log_in(self, username: str) -> None:
        self.page.goto(f"{self.origin}/")
        self.page.fill("#id_username", username)
        self.page.fill("#id_password", PASSWORD)
        self.page.click("input[type=submit]")
        self.page.wait_for_url(f"{self.origin}/hits/")

    def shot(self, name: str, faults_before: int) -> None:
        """A screenshot of the view when it had a fault (of every view with EVERY_PAGE_SHOTS=1): a full
        page's costs as much as visiting it."""
        if len(self.faults) > faults_before or os.environ.get("EVERY_PAGE_SHOTS"):
            self.page.screenshot(path=str(SHOTS / f"{self.label}-{name}.png"), full_page=True)

    def pages(self, paths: list[str]) -> None:
        page = self.page
        for path in paths:
            self.where = f"{self.label} {path}"
            faults_before = len(self.faults)
            self.loading.clear()  # what the last view left unanswered went with it
            page.goto(f"{self.origin}{path}", wait_until="load")
            if "#" in path and path.split("#", 1)[1]:
                page.locator("#floor-map .machine", has_text=path.split("#", 1)[1]).first.click()
                page.wait_for_selector("#panel-asset")
            if path == "/signs/":
                try:
                    page.wait_for_function(PREVIEWS_LOADED, timeout=15_000)
                except PlaywrightTimeout:
                    self.fault("the previews did not load in 15 s")
                page.locator("[data-win]").first.click()
                win = page.frame_locator(".sign iframe").first.locator("#win")
                try:
                    win.wait_for(state="visible", timeout=2_000)
                except PlaywrightTimeout:
                    self.fault("the first preview plays no WIN")
            self.settle()
            for fault in page.evaluate(LAYOUT_FAULTS):
                self.fault(fault)
            for frame in page.frames[1:]:
                for fault in frame.evaluate(FRAME_FAULTS):
                    self.fault(f"{frame.url[len(self.origin) :]}: {fault}")
            self.shot(
                path.strip("/").split("?")[0].replace("/", "-").replace("#", "-") or "root", faults_before
            )
            if path == "/admin/":
                # Every list the admin's index links to.
                lists = page.eval_on_selector_all(
                    "#content-main th[scope=row] a", "links => links.map(a => a.href)"
                )
                self.pages([url[len(self.origin) :] for url in lists])

    def signs(self, signs: list[str]) -> None:
        for url in signs:
            slug = url.split("/")[2]
            self.where = f"{self.label} sign {slug}"
            faults_before = len(self.faults)
            self.page.goto(f"{self.origin}{url}")
            try:
                self.page.wait_for_selector("article.jackpot", timeout=10_000)
            except PlaywrightTimeout:
                self.fault("no card after 10 s")
            for fault in self.page.evaluate(LAYOUT_FAULTS):
                if fault.startswith("page "):
                    self.fault(fault)
            self.shot(f"sign-{slug}", faults_before)


@dataclass
class Venezia:
    """The seeded floor as uvicorn serves it, and what to visit."""

    origin: str
    paths: list[str]
    signs: list[str]


@pytest.fixture(scope="module")
def venezia(django_db_setup, django_db_blocker) -> Iterator[Venezia]:
    """Seeded, committed and served once for every view, emptied after the last one as a transactional
    test's database is (the module's tests run together on one worker: tests/conftest.py). Each test starts
    its own Chromium: while Playwright's sync API runs, Django refuses the database in this thread."""
    try:
        with django_db_blocker.unblock():
            paths, signs = _seed()
        # While mending one page: EVERY_PAGE_ONLY=/progressives/,/admin/ visits only the paths containing one
        # of these (signs when one is "sign").
        only = [part for part in os.environ.get("EVERY_PAGE_ONLY", "").split(",") if part]
        if only:
            paths = [path for path in paths if any(part in path for part in only)]
            signs = signs if "sign" in only else []
        SHOTS.mkdir(parents=True, exist_ok=True)
        (SHOTS / "faults.txt").write_text("")
        with asgi_server() as origin:
            yield Venezia(origin, paths, signs)
    finally:
        with django_db_blocker.unblock():
            call_command("flush", verbosity=0, interactive=False, reset_sequences=False)


def _view(
    browser: Browser, venezia: Venezia, language: str, size: tuple[int, int], faults: list[str]
) -> Visit:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale=language)
    context.add_cookies([{"name": "django_language", "value": language, "url": venezia.origin}])
    page = context.new_page()
    page.set_default_timeout(15_000)
    return Visit(page, venezia.origin, f"{language}-{size[0]}x{size[1]}", faults)


def _faults_reported(faults: list[str]) -> None:
    with open(SHOTS / "faults.txt", "a") as written:
        written.writelines(f"{fault}\n" for fault in faults)
    assert faults == [], f"{len(faults)} faults (all in {SHOTS / 'faults.txt'}):\n" + "\n".join(faults[:60])


@pytest.mark.parametrize("size", PAGE_SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
@pytest.mark.parametrize(("username", "language"), USERS, ids=[language for _, language in USERS])
def test_every_page(venezia: Venezia, username: str, language: str, size: tuple[int, int]) -> None:
    faults: list[str] = []
    with chromium() as browser:
        visit = _view(browser, venezia, language, size, faults)
        visit.log_in(username)
        visit.pages(venezia.paths)
    _faults_reported(faults)


@pytest.mark.parametrize("size", SIGN_SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_every_sign(venezia: Venezia, size: tuple[int, int]) -> None:
    """A sign has no user: one language is enough (the first user's)."""
    faults: list[str] = []
    with chromium() as browser:
        _view(browser, venezia, USERS[0][1], size, faults).signs(venezia.signs)
    _faults_reported(faults)
