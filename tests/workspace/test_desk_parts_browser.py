"""The hits desk in headless Chromium at 1440x900 with a shared table prize: two rows, one per winner's
part, each with its table, round, seat and part of the prize; paying one at or above the €2,000
identification threshold asks for the winner's ID, refuses without it and pays with it; a win the machine
credited itself is never a row to pay (only a closed one, paid by the machine). No sideways overflow, no
console error, no request to another host."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect
from pypdf import PdfReader

from jackpots.models import Hit
from jackpots.services import contributions_apply
from jackpots.services.levels import level_create
from tables.models import PrizePart, PrizeShare, Table
from tables.seed import tables_seed
from tables.services import round_record
from tables.services.parts import part_verify
from tests.browser import ARTIFACTS
from tests.jackpots.factories import GameEventFactory, JackpotEventFactory
from tests.jackpots.helpers import GRAND, progressive_with_machines
from tests.tables.factories import body, seat
from tests.workspace.test_desk_browser import Watched, chromium, fits, log_in, manager

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _shared_prize() -> tuple[PrizePart, PrizePart]:
    """Royals at NOG-CSP-1 and NOG-CSP-2 two seconds apart: one prize, two parts on Ca' Noghera's desk."""
    tables_seed()
    now = timezone.now()
    round_record(
        Table.objects.get(code="NOG-CSP-1"), body("R-1", [seat(3, "AS KS QS JS TS")], at=now.isoformat())
    )
    # Played just before the declared royal and posted while it is pending: the two share one prize.
    earlier = (now - timedelta(seconds=2)).isoformat()
    round_record(Table.objects.get(code="NOG-CSP-2"), body("R-7", [seat(5, "AH KH QH JH TH")], at=earlier))
    PrizeShare.objects.update(closes_at=now - timedelta(seconds=1))  # the window has closed
    first, second = PrizePart.objects.order_by("id")
    return first, second


def _machine_paid_hit() -> Hit:
    """A Ca' Noghera machine's jackpot the machine credited itself (SAS exception 54): €1,000.00 paid."""
    progressive, machines = progressive_with_machines(1, name="Credit Vault")
    level = level_create(progressive, name="Grand", position=1, params=GRAND)
    GameEventFactory(machine=machines[0], wager_cents=450)
    payload = {"level": level.id, "amount": 100_000, "paid": "machine", "paid_amount": 100_000}
    JackpotEventFactory(machine=machines[0], level_id=level.id, amount_cents=100_000, payload=payload)
    contributions_apply()
    return Hit.objects.select_related("machine").get(level=level)


def test_the_desk_pays_a_shared_prize_part_by_part_with_the_winners_id(live_server) -> None:
    giulia, marco = manager("giulia", "Giulia", "Rossi"), manager("marco", "Marco", "Bianchi")
    first, second = _shared_prize()
    credited = _machine_paid_hit()
    asset = credited.machine.asset_number
    part_verify(part_verify(first, giulia), marco)
    number = Hit.objects.exclude(pk=credited.pk).get().ref
    with chromium() as browser:
        watched = Watched(browser, live_server.url, (1440, 900))
        page = watched.page
        log_in(page, live_server.url, "marco")
        page.goto(f"{live_server.url}/hits/?venue=NOG")
        for part, where, amount in (
            (first, "NOG · round R-1 · seat 3 · Royal Flush", "5,000.18"),
            (second, "NOG · round R-7 · seat 5 · Royal Flush", "5,000.17"),
        ):
            row = page.locator(f"#part-{part.pk}")
            expect(row).to_contain_text(number)
            expect(row).to_contain_text(where)
            expect(row).to_contain_text(amount)
            expect(row).to_contain_text("part of the prize of €\u00a010,000.35")
        # The machine paid its own win: nothing to pay on the desk, a closed row naming the machine.
        expect(page.locator(f"#hit-{credited.pk}")).to_have_count(0)
        expect(page.locator(f"#closed-{credited.pk}")).to_contain_text(f"the machine {asset} (credits)")
        fits(page)
        page.screenshot(path=str(ARTIFACTS / "desk-shared-prize-1440.png"), full_page=True)
        page.locator(f"#part-{first.pk} a", has_text="Pay").click()
        expect(page.locator("#confirm-number")).to_have_text(f"{number}, NOG-CSP-1 round R-1 seat 3")
        page.fill("#id_winner_name", "Mario Rossi")
        page.click("#confirm-button")
        expect(page.locator("#confirm-error")).to_contain_text("the winner's name and identity document")
        fits(page)
        page.screenshot(path=str(ARTIFACTS / "desk-id-required-1440.png"), full_page=True)
        page.select_option("#id_document_type", "id_card")
        page.fill("#id_document_number", "CA12345AB")
        page.fill("#id_document_country", "IT")
        page.click("#confirm-button")
        expect(page.locator(".messages")).to_contain_text("is paid")
        expect(page.locator(f"#part-{first.pk}")).to_have_count(0)
        expect(page.locator(f"#part-{second.pk}")).to_contain_text("5,000.17")
        expect(page.locator(f"#closed-part-{first.pk}")).to_contain_text("Marco Bianchi")
        fits(page)
        href = page.locator(f"#closed-part-{first.pk} a", has_text="A5").get_attribute("href")
        slip = page.request.get(f"{live_server.url}{href}")
        text = PdfReader(io.BytesIO(slip.body())).pages[0].extract_text().replace("\u00a0", " ")
        assert "€ 5.000,18" in text and "Mario Rossi - Identity card CA12345AB (IT)" in text
        watched.close()
    first.refresh_from_db()
    assert (first.state, first.paid_by, first.winner_document_number) == (
        PrizePart.State.PAID,
        marco,
        "CA12345AB",
    )
    assert PrizePart.objects.get(pk=second.pk).state == PrizePart.State.OPEN
