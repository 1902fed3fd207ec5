"""The floor manager's guide (docs/floor-managers.md) walked in headless Chromium at 1280x800, in Italian:
the hits desk, the two-person verification, the pay with the winner's ID, the slip and its copy, the day
close with its progressive register, the significant events, the approval queue and a level's state. Each
page shows what the guide says it shows, fits the screen, logs no console error and asks no other host
for anything. With MANUAL_SCREENSHOTS=1 the screenshots are the guide's pictures (docs/img/floor/);
otherwise they go to a temporary folder and the tree is left as it was."""

from __future__ import annotations

import io
import os
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from pypdf import PdfReader

from floor.models import Venue
from floor.services.significant import significant_event_record
from jackpots.models import ChangeProposal, Hit, LedgerEntry, Level
from jackpots.services import change_propose, level_wager_add
from jackpots.services.levels import level_create
from slots.models import MachineEvent
from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, SlotMachineFactory
from tests.staff_fixtures import game_event
from tests.workspace.helpers import hit_on
from tests.workspace.test_day_register import GRAND, level_move, rome
from tests.workspace.test_desk_browser import Watched, chromium, fits, log_in, manager
from tests.workspace.test_every_page import LAYOUT_FAULTS
from workspace.models import DayClose

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
PICTURES = ROOT / "docs" / "img" / "floor"
DAY = date(2026, 11, 20)
SIZE = (1280, 800)


def _pictures(tmp_path: Path) -> Path:
    """Where the screenshots go: the manual's folder only when asked for."""
    if os.environ.get("MANUAL_SCREENSHOTS") == "1":
        PICTURES.mkdir(parents=True, exist_ok=True)
        return PICTURES
    return tmp_path


def _day_at_noghera() -> Level:
    """The business day 2026-11-20 at Ca' Noghera: three games on NOG-0001 and the Grease Grand's day
    (opening €1.000,00, €6,00 of contributions, a correction of 12,345 mc: closing €1.006,12)."""
    machine = SlotMachineFactory(asset_number="NOG-0001", game_title="Grease")
    progressive = ProgressiveFactory(name="Grease")
    ProgressiveMachineFactory(progressive=progressive, machine=machine)
    grand = level_create(progressive, name="Grand", position=1, params=GRAND, at=rome(19, 12))
    level_wager_add(grand.id, 50_000, at=rome(20, 10))
    level_move(grand, LedgerEntry.Kind.CORRECTION, rome(20, 16), 12_345, "corrected_mc")
    games = [game_event(machine, i, rome(20, 20), 200, 100) for i in (1, 2, 3)]
    for game in games:  # received that evening: the venue's first business day is the one closed here
        game.received_at = game.at
    MachineEvent.objects.bulk_create(games)
    return grand


def _events_of_the_day(giulia) -> None:
    venue = Venue.objects.get(code="NOG")
    rows = (
        ("door_open", "NOG-0001", None, "Slot door was opened (SAS exception 11)", "seq 44", (9, 15)),
        ("level_suspended", "Grease · Grand", giulia, "Suspended: bank 3 is being serviced", "", (11, 0)),
        ("void", "NOG-0001", giulia, "Hit NOG-2026-00012 of EUR 1523.47 voided: reel fault", "", (22, 30)),
    )
    for kind, subject, user, detail, reference, (hour, minute) in rows:
        at = datetime(2026, 11, 20, hour, minute, tzinfo=UTC)
        significant_event_record(
            kind, venue=venue, at=at, subject=subject, user=user, detail=detail, reference=reference
        )


class Guide:
    """One Italian session at 1280x800: every page checked, then photographed."""

    def __init__(self, browser, base_url: str, pictures: Path) -> None:
        self.browser = browser
        self.watched = Watched(browser, base_url, SIZE)
        self.watched.context.add_cookies([{"name": "django_language", "value": "it", "url": base_url}])
        self.page: Page = self.watched.page
        self.base_url = base_url
        self.pictures = pictures
        self.taken: list[str] = []

    def shot(self, name: str) -> None:
        fits(self.page)
        assert self.page.evaluate(LAYOUT_FAULTS) == []
        self.page.screenshot(path=str(self.pictures / f"{name}.png"))
        self.taken.append(name)

    def go(self, path: str) -> None:
        self.page.goto(f"{self.base_url}{path}")

    def pdf_text(self, href: str) -> str:
        """The text of a PDF the page links to (fetching it is a print: the first, the original)."""
        body = self.page.request.get(f"{self.base_url}{href}").body()
        return PdfReader(io.BytesIO(body)).pages[0].extract_text().replace("\u00a0", " ")


def _desk_and_first_verify(guide: Guide, hit: Hit) -> None:
    page = guide.page
    log_in(page, guide.base_url, "giulia")
    expect(page.locator("h1")).to_have_text("Banco vincite")
    expect(page.locator("#manual-link")).to_have_text("Manuale")
    expect(page.locator("#manual-link")).to_have_attribute("href", "/manual/")
    row = page.locator(f"#hit-{hit.pk}")
    expect(row).to_contain_text(hit.ref)
    expect(row).to_contain_text("NOG-0005")
    expect(row).to_contain_text("5.000,60")
    expect(row.locator(".state")).to_have_text("da verificare")
    guide.shot("desk")
    row.locator("a", has_text="Verifica…").click()
    expect(page.locator("h1")).to_have_text("Verificare questa vincita?")
    expect(page.locator("#confirm-amount")).to_have_text("€\u00a05.000,60")
    expect(page.locator("#confirm-number")).to_have_text(hit.ref)
    guide.shot("verify")
    page.click("#confirm-button")
    expect(page.locator(".messages")).to_contain_text("prima verifica registrata")
    expect(row.locator(".state")).to_have_text("in attesa di una seconda persona: verificata da Giulia Rossi")
    guide.shot("second-person")
    page.click("button.logout")


def _second_verify_and_pay(guide: Guide, hit: Hit) -> None:
    page = guide.page
    log_in(page, guide.base_url, "marco")
    row = page.locator(f"#hit-{hit.pk}")
    row.locator("a", has_text="Verifica…").click()
    expect(page.locator("#confirm")).to_contain_text("sei la seconda persona a verificarla")
    page.click("#confirm-button")
    expect(row.locator(".state")).to_have_text("da pagare")
    row.locator("a", has_text="Paga…").click()
    expect(page.locator("h1")).to_have_text("Pagare questa vincita?")
    page.fill("#id_winner_name", "Mario Rossi")
    page.click("#confirm-button")
    # €5.000,60 is at or above the €2.000 threshold: no pay without the winner's document.
    expect(page.locator("#confirm-error")).to_be_visible()
    page.select_option("#id_document_type", "passport")
    page.fill("#id_document_number", "YA1234567")
    page.fill("#id_document_country", "IT")
    guide.shot("pay")
    page.click("#confirm-button")
    expect(page.locator(".messages")).to_contain_text(f"{hit.ref} (€\u00a05.000,60) è pagata")
    expect(page.locator(f"#closed-{hit.pk}")).to_contain_text("Marco Bianchi")
    guide.shot("paid")


def _slip_and_its_copy(guide: Guide, hit: Hit) -> None:
    page = guide.page
    href = page.locator(f"#closed-{hit.pk} a", has_text="A5").get_attribute("href")
    original = guide.pdf_text(href)
    assert "€ 5.000,60" in original and "Giulia Rossi" in original and "Marco Bianchi" in original
    assert "COPIA" not in original
    copy = guide.pdf_text(href)
    assert "COPIA / COPY n. 1 - Marco Bianchi" in copy
    # The second copy in Chromium's PDF viewer, in a context of its own: the viewer loads its own
    # chrome:// pages, which the watched context would count as other hosts.
    viewer = guide.browser.new_context(
        viewport={"width": SIZE[0], "height": SIZE[1]}, storage_state=guide.watched.context.storage_state()
    )
    network: list[str] = []
    viewer.on("request", lambda r: network.append(r.url) if r.url.startswith("http") else None)
    slip = viewer.new_page()
    assert slip.goto(f"{guide.base_url}{href}").headers["content-type"] == "application/pdf"
    slip.wait_for_timeout(1_500)  # the viewer draws the page after the load
    slip.screenshot(path=str(guide.pictures / "slip.png"))
    guide.taken.append("slip")
    viewer.close()
    # The viewer asks for the slip again itself (one print still: the next copy is n. 3); nothing else.
    assert set(network) == {f"{guide.base_url}{href}"}
    assert "COPIA / COPY n. 3 - Marco Bianchi" in guide.pdf_text(href)


def _day_close(guide: Guide, grand: Level) -> None:
    page = guide.page
    page.locator("nav.ws-nav a", has_text="Chiusura giornata").click()
    guide.go(f"/dayclose/?day={DAY.isoformat()}")
    expect(page.locator("h1")).to_have_text("Chiusura giornata: Ca' Noghera, 20/11/2026")
    expect(page.locator("#line-NOG-0001")).to_be_visible()
    expect(page.locator("#sign-off button")).to_have_text("Firma la chiusura della giornata")
    guide.shot("dayclose")
    register = page.locator("#register")
    expect(page.locator("#register-title")).to_have_text("Registro dei progressivi")
    row = page.locator(f"#register-{grand.id}")
    expect(row.locator("td").nth(0)).to_have_text("1.000,00")
    expect(row.locator("td").nth(1)).to_have_text("6,00")
    expect(row.locator("td").nth(8)).to_have_text("1.006,12")
    expect(row.locator("td.identity")).to_have_text("quadra")
    expect(register.locator("a", has_text="CSV")).to_have_attribute(
        "href", "/dayclose/NOG/2026-11-20/register.csv"
    )
    expect(register.locator("a", has_text="PDF")).to_have_attribute(
        "href", "/dayclose/NOG/2026-11-20/register.pdf"
    )
    page.evaluate("document.getElementById('register-title').scrollIntoView()")
    guide.shot("register")
    page.fill("#note", "Contatori letti con il tecnico di turno.")
    page.click("#sign-off button")
    expect(page.locator(".messages")).to_contain_text("La giornata del 2026-11-20 è firmata.")
    expect(page.locator("#signed-off")).to_contain_text("Contatori letti con il tecnico di turno.")
    expect(page.locator("#sign-off")).to_have_count(0)


def _events(guide: Guide) -> None:
    page = guide.page
    page.locator("nav.ws-nav a", has_text="Eventi significativi").click()
    guide.go(f"/events/NOG/{DAY.isoformat()}/")
    table = page.locator("#significant-events")
    expect(table.locator("tbody tr")).to_have_count(3)
    expect(table).to_contain_text("20/11/2026 10:15:00")
    expect(table).to_contain_text("Porta aperta")
    expect(table).to_contain_text("Livello sospeso")
    expect(table).to_contain_text("Vincita annullata")
    expect(table).to_contain_text("Giulia Rossi")
    expect(table.locator("tfoot")).to_have_text("3 eventi")
    guide.shot("events")


def _approvals(guide: Guide, proposal: ChangeProposal) -> None:
    page = guide.page
    page.click("nav.ws-nav a[href='/approvals/']")
    expect(page.locator("h1")).to_have_text("Approvazioni")
    row = page.locator(f"#proposal-{proposal.pk}")
    expect(row).to_contain_text("Correzione per malfunzionamento")
    expect(row).to_contain_text("+€\u00a012,34")
    expect(row).to_contain_text("Giulia Rossi")
    expect(row.locator("button[name=approve]")).to_have_text("Approva")
    expect(row.locator("button[name=reject]")).to_have_text("Respingi")
    guide.shot("approvals")


def _level_state(guide: Guide, level: Level) -> None:
    page = guide.page
    guide.go(f"/progressives/levels/{level.pk}/")
    expect(page.locator("#level-state-button")).to_have_text("Sospendi il livello")
    guide.shot("level")


def test_the_floor_managers_guide_in_italian_at_1280(live_server, tmp_path):
    """The data first, then one browser: Playwright's sync API keeps an event loop in this thread."""
    giulia, marco = manager("giulia", "Giulia", "Rossi"), manager("marco", "Marco", "Bianchi")
    hit = hit_on("NOG-0005", 500_060_000)
    grand = _day_at_noghera()
    _events_of_the_day(giulia)
    proposal = change_propose(
        kind="correction",
        user=giulia,
        reason="Guasto del 20/11: contributo perso trovato nella riconciliazione del banco 3",
        level=grand,
        amount_mc=1_234_567,
    )
    pictures = _pictures(tmp_path)
    with chromium() as browser:
        guide = Guide(browser, live_server.url, pictures)
        _desk_and_first_verify(guide, hit)
        _second_verify_and_pay(guide, hit)
        _slip_and_its_copy(guide, hit)
        _day_close(guide, grand)
        _events(guide)
        _approvals(guide, proposal)
        _level_state(guide, grand)
        guide.watched.close()
    expected = ["desk", "verify", "second-person", "pay", "paid", "slip"]
    expected += ["dayclose", "register", "events", "approvals", "level"]
    assert guide.taken == expected
    assert sorted(path.stem for path in pictures.glob("*.png")) == sorted(expected)
    hit.refresh_from_db()
    assert (hit.state, hit.verified_by, hit.second_verified_by, hit.paid_by) == (
        Hit.State.PAID,
        giulia,
        marco,
        marco,
    )
    assert (hit.winner_name, hit.winner_document_number) == ("Mario Rossi", "YA1234567")
    signed = DayClose.objects.get(venue__code="NOG", business_day=DAY)
    assert (signed.signed_by, signed.note) == (marco, "Contatori letti con il tecnico di turno.")
