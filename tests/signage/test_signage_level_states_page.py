"""A suspended level on the real sign page in headless Chromium: the word in the screen's language takes its
amount's place, in the card's colours, and gives it back when the level resumes; a retired level leaves."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser import ARTIFACTS
from tests.factories import SignageScreenFactory, SlotMachineFactory
from tests.signage.pages import BrowserThread, floor_create, page_open, sign_render, snapshot_send

pytestmark = [pytest.mark.browser, pytest.mark.django_db]


@pytest.fixture(scope="module")
def browser():
    browser = BrowserThread()
    yield browser
    browser.close()


def _update(page: Page, level: dict, seq: int, state: str) -> None:
    frame = {
        "type": "update",
        "levels": [{"id": level["id"], "amount_eur": level["amount_eur"], "seq": seq, "state": state}],
    }
    page.evaluate("frame => window.__send(frame)", frame)


@pytest.mark.parametrize(("language", "word"), [("it", "Sospeso"), ("en", "Suspended")])
def test_a_level_suspended_resumed_and_retired_on_the_sign(browser, language, word):
    machine = SlotMachineFactory()
    ids = floor_create(machine.room.venue)[:2]  # Super Spin, Grease
    screen = SignageScreenFactory(slug=f"nog-{language}", venue=machine.room.venue, language=language)
    html, path, jackpots = sign_render(screen, ids)
    grease = next(jackpot for jackpot in jackpots if jackpot["name"] == "Grease")
    major, minor = grease["levels"][1], grease["levels"][2]

    def work(page: Page) -> None:
        page_open(page, html, path)
        snapshot_send(page, jackpots)
        block = page.locator(f'.level[data-level-id="{major["id"]}"]')
        expect(block.locator(".suspended")).to_be_hidden()
        _update(page, major, major["seq"] + 1, "suspended")
        expect(block).to_have_attribute("data-state", "suspended")
        expect(block.locator(".suspended")).to_be_visible()
        expect(block.locator(".suspended")).to_have_text(word)
        expect(block.locator(".amount")).to_be_hidden()
        page.screenshot(path=str(ARTIFACTS / f"signage-suspended-{language}.png"))
        _update(page, major, major["seq"] + 2, "active")
        expect(block.locator(".amount")).to_be_visible()
        expect(block.locator(".suspended")).to_be_hidden()
        _update(page, minor, minor["seq"] + 1, "retired")
        expect(page.locator(f'.level[data-level-id="{minor["id"]}"]')).to_have_count(0)
        expect(page.locator(".jackpot .level")).to_have_count(5)  # Super Spin's one, Grease's four left

    browser.run(work, {"width": 1920, "height": 1080})
