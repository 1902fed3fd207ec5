"""The level page's suspend form in headless Chromium at 1440x900, in Italian: the reason is required,
the level is suspended and shown so, nothing overflows, no console error, no request to another host."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from django.contrib.auth.models import Group, User
from playwright.sync_api import expect, sync_playwright

from floor.models import SignificantEvent
from floor.roles import FLOOR_MANAGER
from jackpots.models import Level
from tests.browser import ARTIFACTS, chromium_launch
from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, SlotMachineFactory
from tests.floor.staff import level_seeded
from tests.workspace.test_desk_browser import PASSWORD, Watched, fits

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_suspend_form_in_italian_at_1440x900(live_server):
    progressive = ProgressiveFactory(name="Grease")
    ProgressiveMachineFactory(progressive=progressive, machine=SlotMachineFactory(asset_number="NOG-0005"))
    level = level_seeded(progressive=progressive, name="Grand", reset_mc=100_000_000)
    user = User.objects.create_user("giulia", password=PASSWORD, is_staff=True, first_name="Giulia")
    user.groups.add(Group.objects.get(name=FLOOR_MANAGER))
    base = live_server.url
    with sync_playwright() as playwright:
        browser = chromium_launch(playwright)
        try:
            watched = Watched(browser, base, (1440, 900))
            watched.context.add_cookies([{"name": "django_language", "value": "it", "url": base}])
            page = watched.page
            page.goto(f"{base}/")
            page.fill("#id_username", "giulia")
            page.fill("#id_password", PASSWORD)
            page.click("input[type=submit]")
            page.goto(f"{base}/progressives/levels/{level.pk}/")
            expect(page.locator("#level-state-value")).to_have_text("Attivo")
            fits(page)
            page.screenshot(path=str(ARTIFACTS / "level-state-form-1440.png"), full_page=True)
            # The browser itself refuses an empty reason (required): nothing is posted.
            page.click("#level-state-button")
            assert urlparse(page.url).path == f"/progressives/levels/{level.pk}/"
            expect(page.locator("#level-state-value")).to_have_text("Attivo")
            assert page.evaluate("() => document.querySelector('#id_reason').validity.valueMissing")
            page.fill("#id_reason", "Guasto del controller del progressivo")
            page.click("#level-state-button")
            expect(page.locator("#level-state-value")).to_have_text("Sospeso")
            expect(page.locator(".messages")).to_contain_text("Grease Grand è sospeso.")
            expect(page.locator("#level-state-button")).to_have_text("Riattiva il livello")
            fits(page)
            page.screenshot(path=str(ARTIFACTS / "level-state-suspended-1440.png"), full_page=True)
            watched.close()
        finally:
            browser.close()
    assert Level.objects.get(pk=level.pk).state == "suspended"
    assert SignificantEvent.objects.get().detail == "Guasto del controller del progressivo"
