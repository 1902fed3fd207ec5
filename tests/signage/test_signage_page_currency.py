"""The sign page renders what the frames carry: francs on a Lugano screen, euros on a Ca' Noghera one.
The page and its script are the real ones; the websocket is replaced in the browser so the frames are
exactly those the server's snapshot builds."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import Locator, Page, expect, sync_playwright

from common.credentials import screen_token_issue
from jackpots.models import ExchangeRate
from signage.currency import ScreenContent
from signage.selectors import signage_snapshot
from signage.snapshots import SignageProgressiveSerializer
from tests.browser import ARTIFACTS, chromium_launch
from tests.factories import SignageScreenFactory, VenueFactory
from tests.signage.helpers import SignSetup
from tests.signage.pages import page_open

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def snapshot_shown(
    page: Page, rendered: tuple[str, str, list[dict]], *, level_id: int, text: str, currency: str
) -> Locator:
    """Opens the page, sends it the snapshot and checks what the level's amount reads."""
    html, path, snapshot = rendered
    page_open(page, html, path)
    page.evaluate("jackpots => window.__send({type: 'snapshot', jackpots: jackpots})", snapshot)
    amount = page.locator(f'.amount[data-level-id="{level_id}"]')
    expect(amount).to_have_text(text)
    expect(amount).to_have_attribute("data-currency", currency)
    return amount


def screen_render(setup: SignSetup, currency: str) -> tuple[str, str, list[dict]]:
    path = f"/signage/{setup.screen.slug}/?token={setup.token}"
    html = Client().get(path).content.decode()
    snapshot = SignageProgressiveSerializer(
        signage_snapshot(ScreenContent((setup.progressive.id,), currency)), many=True
    ).data
    return html, path, snapshot


def test_a_chf_screen_renders_francs_and_a_eur_screen_euros(sign_setup: SignSetup) -> None:
    ExchangeRate.objects.create(
        base="EUR", quote="CHF", rate=Decimal("0.94123456"), valid_from=timezone.now() - timedelta(hours=1)
    )
    venue = VenueFactory(code="LUG", name="Casinò Lugano", currency="CHF")
    screen = SignageScreenFactory(slug="lug-1", venue=venue)
    screen.progressives.add(sign_setup.progressive)
    chf_setup = dataclasses.replace(sign_setup, screen=screen, token=screen_token_issue(screen))
    grand = sign_setup.grand.id
    # Database reads first: Playwright's sync API runs an event loop in this thread.
    chf_screen = screen_render(chf_setup, "CHF")
    eur_screen = screen_render(sign_setup, "EUR")
    with sync_playwright() as playwright:
        browser = chromium_launch(playwright)
        try:
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            # 152,347 cents x 0.94123456 = 143,394 centimes, rounded down.
            amount = snapshot_shown(page, chf_screen, level_id=grand, text="1.433,94 CHF", currency="CHF")
            page.evaluate(
                "level => window.__send({type: 'update', levels: [{id: level, amount_eur: '1600.00', seq: 8,"
                " amount: 150597, currency: 'CHF'}]})",
                grand,
            )
            expect(amount).to_have_text("1.505,97 CHF", timeout=3000)
            page.evaluate(
                "level => window.__send({type: 'hit', level: level, amount_eur: '1988.20',"
                " machine: 'NOG-0104', reset_eur: '1000.00', seq: 9, amount: 187136, reset: 94123,"
                " currency: 'CHF'})",
                grand,
            )
            expect(page.locator("#win-amount")).to_have_text("1.871,36 CHF")
            page.screenshot(path=str(ARTIFACTS / "signage-chf-win-1920x1080.png"))

            page = browser.new_page(viewport={"width": 1080, "height": 1920})
            snapshot_shown(page, eur_screen, level_id=grand, text="1.523,47 €", currency="EUR")
        finally:
            browser.close()
