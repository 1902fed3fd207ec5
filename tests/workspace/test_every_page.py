"""Every workspace page a floor manager reaches from ``/``, and every sign, in headless Chromium as an
Italian and an English user, at 1440x900 and 1920x1080 (signs also 1080x1920), on the Venezia seed (both
venues, every room, the progressives and screens) with hits waiting, served by uvicorn.

A page fails on: the page or a box in it scrolling sideways, text past the box it sits in, a chart label
outside its chart, a console error, a request to another host, a 4xx/5xx answer; a sign fails without a
card after 10 s. All faults of a run are gathered and reported together; screenshots of every view go to
test-artifacts/every-page/. One browser, one page per language and size, reused from view to view."""

from __future__ import annotations

import os
from datetime import timedelta
from urllib.parse import urlparse

import pytest
from django.contrib.auth.models import Group, User
from django.utils import timezone
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from common.credentials import screen_token_issue
from floor.models import Room, SignageScreen, Venue
from floor.roles import FLOOR_MANAGER
from jackpots.models import Hit, Level, Progressive, ProgressiveMachine
from jackpots.seed import progressives_seed
from jackpots.services import change_propose, level_hit
from jackpots.services.hits import hit_verify
from slots.models import MachineEvent, SlotMachine
from tests.browser import ARTIFACTS
from tests.staff_fixtures import game_event
from tests.workspace.test_browser import asgi_server
from tests.workspace.test_desk_browser import PASSWORD, chromium
from workspace.seed import floor_seed, screens_seed

pytestmark = [pytest.mark.browser, pytest.mark.postgres]

SHOTS = ARTIFACTS / "every-page"
PAGE_SIZES = ((1440, 900), (1920, 1080))
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
    # The public rules pages (no login needed; visited logged in, in the user's language): a progressive
    # with lines per level and the mystery one (a table one's: tests/jackpots/signage).
    names = ("Grease", "Venezia Mystery")
    paths += [
        f"/rules/{pk}/" for pk in Progressive.objects.filter(name__in=names).values_list("id", flat=True)
    ]
    signs = [
        f"/signage/{screen.slug}/?token={screen_token_issue(screen)}"
        for screen in SignageScreen.objects.order_by("slug")
    ]
    return paths, signs


class Visit:
    """One page of one language and size, reused from view to view; every fault it sees goes to
    ``faults``, named with the view it came in (``where``): console errors, requests to other hosts,
    4xx/5xx answers, and what the layout checks find."""

    def __init__(self, page: Page, origin: str, label: str, faults: list[str]) -> None:
        self.page, self.origin, self.label, self.faults = page, origin, label, faults
        self.where = ""
        host = urlparse(origin).netloc
        page.on("console", lambda m: self.fault(f"console {m.text[:160]}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.fault(f"script error {e}"))
        page.on(
            "request",
            lambda r: (
                self.fault(f"request to {r.url[:80]}") if urlparse(r.url).netloc not in (host, "") else None
            ),
        )
        page.on(
            "response",
            lambda r: self.fault(f"{r.status} {r.url[len(origin) :][:80]}") if r.status >= 400 else None,
        )

    def fault(self, text: str) -> None:
        self.faults.append(f"{self.where}: {text}")

    def log_in(self, username: str) -> None:
        self.page.goto(f"{self.origin}/")
        self.page.fill("#id_username", username)
        self.page.fill("#id_password", PASSWORD)
        self.page.click("input[type=submit]")
        self.page.wait_for_url(f"{self.origin}/hits/")

    def shot(self, name: str) -> None:
        self.page.screenshot(path=str(SHOTS / f"{self.label}-{name}.png"), full_page=True)

    def pages(self, paths: list[str]) -> None:
        page = self.page
        for path in paths:
            self.where = f"{self.label} {path}"
            page.goto(f"{self.origin}{path}", wait_until="load")
            if "#" in path and path.split("#", 1)[1]:
                page.locator("#floor-map .machine", has_text=path.split("#", 1)[1]).first.click()
                page.wait_for_selector("#panel-asset")
            if path == "/signs/":
                page.wait_for_timeout(1_500)  # the previews load lazily
                page.locator("[data-win]").first.click()
                win = page.frame_locator(".sign iframe").first.locator("#win")
                try:
                    win.wait_for(state="visible", timeout=2_000)
                except PlaywrightTimeout:
                    self.fault("the first preview plays no WIN")
            page.wait_for_timeout(300)
            for fault in page.evaluate(LAYOUT_FAULTS):
                self.fault(fault)
            for frame in page.frames[1:]:
                for fault in frame.evaluate(FRAME_FAULTS):
                    self.fault(f"{frame.url[len(self.origin) :]}: {fault}")
            self.shot(path.strip("/").split("?")[0].replace("/", "-").replace("#", "-") or "root")
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
            self.page.goto(f"{self.origin}{url}")
            try:
                self.page.wait_for_selector("article.jackpot", timeout=10_000)
            except PlaywrightTimeout:
                self.fault("no card after 10 s")
            for fault in self.page.evaluate(LAYOUT_FAULTS):
                if fault.startswith("page "):
                    self.fault(fault)
            self.shot(f"sign-{slug}")


@pytest.mark.django_db(transaction=True)
def test_every_page_and_sign_in_italian_and_english():
    paths, signs = _seed()
    # While mending one page: EVERY_PAGE_ONLY=/progressives/,/admin/ visits only the paths containing one
    # of these (signs when one is "sign").
    only = [part for part in os.environ.get("EVERY_PAGE_ONLY", "").split(",") if part]
    if only:
        paths = [path for path in paths if any(part in path for part in only)]
        signs = signs if "sign" in only else []
    SHOTS.mkdir(parents=True, exist_ok=True)
    faults: list[str] = []
    with asgi_server() as origin, chromium() as browser:
        for username, language in USERS:
            for size in SIGN_SIZES:
                context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale=language)
                context.add_cookies([{"name": "django_language", "value": language, "url": origin}])
                page = context.new_page()
                page.set_default_timeout(15_000)
                visit = Visit(page, origin, f"{language}-{size[0]}x{size[1]}", faults)
                if size in PAGE_SIZES:
                    visit.log_in(username)
                    visit.pages(paths)
                if username == USERS[0][0]:  # a sign has no user: one pass over the signs is enough
                    visit.signs(signs)
                context.close()
    (SHOTS / "faults.txt").write_text("\n".join(faults) + "\n")
    assert faults == [], f"{len(faults)} faults (all in {SHOTS / 'faults.txt'}):\n" + "\n".join(faults[:60])
