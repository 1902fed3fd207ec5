"""The significant-events register in headless Chromium at 1440x900, in Italian: the day's rows with
Italian kinds and dates, the filters, nothing scrolling sideways or past its box, no console error, no
request to another host."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from playwright.sync_api import expect

from floor.services.significant import significant_event_record
from tests.browser import ARTIFACTS
from tests.factories import VenueFactory
from tests.workspace.test_desk_browser import Watched, chromium, fits, log_in, manager
from tests.workspace.test_every_page import LAYOUT_FAULTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
DAY = "2026-11-20"


def _register() -> None:
    venue = VenueFactory(code="NOG")
    giulia = manager("giulia", "Giulia", "Rossi")
    significant_event_record(
        "door_open",
        venue=venue,
        at=datetime(2026, 11, 20, 9, 15, 2, tzinfo=UTC),
        subject="NOG-0101",
        machine_id=1,
        detail="Slot door was opened (SAS exception 11)",
        reference="seq 44",
    )
    significant_event_record(
        "void",
        venue=venue,
        at=datetime(2026, 11, 20, 23, 30, tzinfo=UTC),
        subject="NOG-0102",
        machine_id=2,
        user=giulia,
        detail="Hit NOG-2026-00012 of EUR 1523.47 voided: " + "the reel stopped between symbols " * 6,
        reference="NOG-2026-00012",
    )
    significant_event_record(
        "key_revoked",
        venue=venue,
        at=datetime(2026, 11, 20, 12, tzinfo=UTC),
        subject="Gateway NOG",
        user=giulia,
        detail="gateway key pv_gw_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789… revoked",
        reference="pv_gw_AbCdEfGhIj",
    )
    significant_event_record(
        "link_down", at=datetime(2026, 11, 21, 4, 59, 59, tzinfo=UTC), subject="Link", detail="House down"
    )


def test_the_register_in_italian_at_1440x900(live_server):
    _register()  # the data first: Playwright's sync API keeps an event loop in this thread
    with chromium() as browser:
        watched = Watched(browser, live_server.url, (1440, 900))
        watched.context.add_cookies([{"name": "django_language", "value": "it", "url": live_server.url}])
        page = watched.page
        log_in(page, live_server.url, "giulia")
        page.locator("nav.ws-nav a", has_text="Eventi significativi").click()
        expect(page).to_have_url(f"{live_server.url}/events/NOG/" + page.url.split("/events/NOG/")[1])
        page.goto(f"{live_server.url}/events/NOG/{DAY}/")
        table = page.locator("#significant-events")
        expect(table.locator("tbody tr")).to_have_count(4)
        expect(table).to_contain_text("20/11/2026 10:15:02")
        expect(table).to_contain_text("Porta aperta")
        expect(table).to_contain_text("Vincita annullata")
        expect(table).to_contain_text("Chiave revocata")
        expect(table).to_contain_text("Collegamento interrotto")
        expect(table).to_contain_text("Giulia Rossi")
        expect(page.locator("tfoot")).to_contain_text("4 eventi")
        fits(page)
        assert page.evaluate(LAYOUT_FAULTS) == []
        page.screenshot(path=str(ARTIFACTS / "events-it-1440.png"), full_page=True)
        page.select_option("#id_kind", "void")
        page.click("#register-filters button[type=submit]")
        expect(page).to_have_url(f"{live_server.url}/events/NOG/{DAY}/?kind=void")
        expect(table.locator("tbody tr")).to_have_count(1)
        expect(table).to_contain_text("NOG-0102")
        page.fill("#id_user", "nessuno")
        page.click("#register-filters button[type=submit]")
        expect(table).to_contain_text("Nessun evento significativo in questa giornata contabile.")
        fits(page)
        assert page.evaluate(LAYOUT_FAULTS) == []
        watched.close()
