"""The day close's progressive register in headless Chromium at 1440x900, in Italian: it fits the screen,
no console error, no request to another host, money in the Italian format and the identity said."""

from __future__ import annotations

from datetime import date
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from jackpots.models import LedgerEntry
from jackpots.services import level_wager_add
from jackpots.services.levels import level_create
from tests.browser import ARTIFACTS
from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, SlotMachineFactory
from tests.workspace.test_day_register import GRAND, level_move, rome
from tests.workspace.test_desk_browser import Watched, chromium, fits, log_in, manager

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_register_in_day_close_in_italian_at_1440(live_server):
    manager("giulia", "Giulia", "Rossi")
    machine = SlotMachineFactory(asset_number="NOG-0001")
    progressive = ProgressiveFactory(name="Grease")
    ProgressiveMachineFactory(progressive=progressive, machine=machine)
    grand = level_create(progressive, name="Grand", position=1, params=GRAND, at=rome(19, 12))
    # €500.00 played: +500,000 mc to the amount, +100,000 mc to the reserve; a correction of 12,345 mc.
    level_wager_add(grand.id, 50_000, at=rome(20, 10))
    level_move(grand, LedgerEntry.Kind.CORRECTION, rome(20, 16), 12_345, "corrected_mc")
    with chromium() as browser:
        watched = Watched(browser, live_server.url, (1440, 900))
        watched.context.add_cookies([{"name": "django_language", "value": "it", "url": live_server.url}])
        page = watched.page
        log_in(page, live_server.url, "giulia")
        page.goto(f"{live_server.url}/dayclose/?day={date(2026, 11, 20).isoformat()}")
        expect(page.locator("#register-title")).to_have_text("Registro dei progressivi")
        row = page.locator(f"#register-{grand.id}")
        # Opening €1.000,00; contributions €6,00 (500,000 + 100,000 mc); closing €1.006,12 (+12,345 mc).
        expect(row.locator("td").nth(0)).to_have_text("1.000,00")
        expect(row.locator("td").nth(1)).to_have_text("6,00")
        expect(row.locator("td").nth(8)).to_have_text("1.006,12")
        expect(row.locator("td.identity")).to_have_text("quadra")
        expect(page.locator(f"#register-close-{grand.id} td").nth(0)).to_have_text("1.005,12")
        verdict = "L\u2019identità quadra per ogni livello."
        expect(page.locator("#register-identity tfoot")).to_contain_text(verdict)
        fits(page)
        page.screenshot(path=str(ARTIFACTS / "dayclose-register-1440.png"), full_page=True)
        href = page.locator("#register a", has_text="CSV").get_attribute("href")
        assert href == "/dayclose/NOG/2026-11-20/register.csv"
        assert urlparse(page.url).netloc == urlparse(live_server.url).netloc
        watched.close()
