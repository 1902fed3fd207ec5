"""The approval queue in headless Chromium at 1440x900, in Italian: a second manager approves a correction
another proposed; the page fits, with no console error and no request to another host."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from jackpots.models import ChangeProposal, LedgerEntry
from jackpots.services import change_approve, change_propose, change_reject, progressive_retire
from tests.browser import ARTIFACTS
from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, SlotMachineFactory
from tests.floor.staff import level_seeded
from tests.workspace.test_desk_browser import Watched, chromium, fits, log_in, manager

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _levels():
    levels = []
    for name, asset in (("Grease", "NOG-0005"), ("Venice Gold", "NOG-0104")):
        progressive = ProgressiveFactory(name=name)
        ProgressiveMachineFactory(progressive=progressive, machine=SlotMachineFactory(asset_number=asset))
        levels.append(level_seeded(progressive=progressive, name="Grand", reset_mc=100_000_000))
    return levels


def test_the_approval_queue_in_italian_at_1440(live_server):
    giulia, marco = manager("giulia", "Giulia", "Rossi"), manager("marco", "Marco", "Bianchi")
    grease, gold = _levels()
    # History: a top-up approved, one rejected, a retirement to the register.
    change_approve(
        change_propose(kind="topup", user=giulia, reason="Promozione", level=gold, amount_mc=123_456_789),
        marco,
    )
    change_reject(
        change_propose(kind="topup", user=giulia, reason="Prova", level=gold, amount_mc=1_000),
        marco,
        "Nessun documento",
    )
    change_approve(progressive_retire(gold.progressive, giulia, "Banco sostituito"), marco)
    pending = change_propose(
        kind="correction",
        user=giulia,
        reason="Guasto del 26/11: contributo perso trovato nella riconciliazione del banco 3 (ticket 4711)",
        level=grease,
        amount_mc=1_234_567,
    )
    change_propose(
        kind="parameters", user=marco, reason="Nuova tabella", level=grease, params={"rate": "0.02"}
    )
    with chromium() as browser:
        watched = Watched(browser, live_server.url, (1440, 900))
        watched.context.add_cookies([{"name": "django_language", "value": "it", "url": live_server.url}])
        page = watched.page
        log_in(page, live_server.url, "marco")
        page.click("nav.ws-nav a[href='/approvals/']")
        expect(page.locator("h1")).to_have_text("Approvazioni")
        row = page.locator(f"#proposal-{pending.pk}")
        expect(row).to_contain_text("Correzione per malfunzionamento")
        expect(row).to_contain_text("+€\u00a012,34")
        expect(row).to_contain_text("Giulia Rossi")
        expect(page.locator("#approvals-pending")).to_contain_text("aliquota: 0,02")
        # Marco's own proposal: he sees it, he cannot decide it.
        expect(page.locator("#approvals-pending")).to_contain_text("Tua: la decide")
        expect(page.locator("#retired-liabilities")).to_contain_text("1.234,56")
        fits(page)
        page.screenshot(path=str(ARTIFACTS / "approvals-it-1440.png"), full_page=True)
        row.locator("button[name=approve]").click()
        expect(page.locator(".messages")).to_contain_text("Approvata")
        expect(page.locator("#approvals-decided")).to_contain_text("Marco Bianchi")
        fits(page)
        watched.close()
    pending.refresh_from_db()
    assert (pending.state, pending.decided_by) == (ChangeProposal.State.APPROVED, marco)
    assert LedgerEntry.objects.get(proposal=pending).corrected_mc == 1_234_567
