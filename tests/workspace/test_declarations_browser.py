"""The table declarations page in headless Chromium at 1440x900, in Italian: a floor manager sees the pending
Royal Flush and releases it with a reason; the page fits the screen, with no console error and no request
to another host. Screenshots go to test-artifacts/."""

from __future__ import annotations

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tables.models import PayTable, Table, TableDeclaration
from tables.seed import tables_seed
from tables.services import round_record
from tests.browser import ARTIFACTS
from tests.tables.factories import body, seat
from tests.workspace.test_desk_browser import Watched, chromium, fits, log_in, manager

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_floor_manager_releases_a_declaration_in_italian(live_server) -> None:
    giulia = manager("giulia", "Giulia", "Rossi")
    tables_seed(jumbo_7_opening_mc=None)
    # Played now; an hour's window, so that no slow machine sees it lapse before the release.
    PayTable.objects.update(share_window_seconds=3600)
    played = body("N-1", [seat(1, "AS KS QS JS TS")], at=timezone.now().isoformat())
    round_record(Table.objects.get(code="NOG-CSP-1"), played)
    with chromium() as browser:
        watched = Watched(browser, live_server.url, (1440, 900))
        watched.context.add_cookies([{"name": "django_language", "value": "it", "url": live_server.url}])
        page = watched.page
        log_in(page, live_server.url, "giulia")
        page.goto(f"{live_server.url}/tables/declarations/")
        expect(page.locator("h1")).to_have_text("Dichiarazioni ai tavoli")
        expect(page.locator("nav.ws-nav [aria-current=page]")).to_have_text("Dichiarazioni")
        card = page.locator("form.declaration")
        expect(card).to_contain_text("Scala reale massima")
        expect(card).to_contain_text("NOG-CSP-1")
        expect(card).to_contain_text("posto 1")
        expect(card).to_contain_text("€ 10.000,35")
        fits(page)
        page.screenshot(path=str(ARTIFACTS / "workspace-declarations-1440.png"), full_page=True)
        card.locator("textarea[name=reason]").fill("Mano verificata dal capotavolo")
        card.locator("button[type=submit]").click()
        expect(page.locator(".messages .success")).to_have_text(
            "La dichiarazione al tavolo NOG-CSP-1 è rilasciata: i tavoli collegati riprendono il gioco."
        )
        expect(page.locator("#declarations-none")).to_be_visible()
        expect(page.locator("#declarations-ended tbody tr")).to_contain_text("Rilasciata")
        expect(page.locator("#declarations-ended tbody tr")).to_contain_text("Giulia Rossi")
        fits(page)
        page.screenshot(path=str(ARTIFACTS / "workspace-declarations-released-1440.png"), full_page=True)
        watched.close()
    declaration = TableDeclaration.objects.get()
    assert (declaration.state, declaration.released_by, declaration.release_reason) == (
        "released",
        giulia,
        "Mano verificata dal capotavolo",
    )
