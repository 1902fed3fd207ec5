"""A declaration on the sign page (real page, CSS and script; frames sent by the test): the Caribbean Stud
card shows a band in the screen's language, inside the card and uncut, on a 1080p TV and a portrait totem,
and the band goes with the ``released`` frame. Screenshots in test-artifacts/."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.signage.pages import page_open, snapshot_send
from tests.signage.test_signage_layout import VIEWPORTS, browser, floor_sign, measured  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

BAND = "Scala reale massima dichiarata al tavolo NOG-CSP-1, posto 3: gioco sospeso"


def declaration(jackpot: int, state: str) -> dict:
    return {
        "type": "declaration",
        "id": 1,
        "jackpot": jackpot,
        "level": 1,
        "state": state,
        "outcome": None if state == "pending" else "released",
        "table": "NOG-CSP-1",
        "seat": 3,
        "hand": "royal_flush",
        "opened_at": "2026-11-21T18:00:00+00:00",
        "expires_at": "2026-11-21T18:01:00+00:00",
        "released_at": None,
    }


@pytest.mark.parametrize("name", VIEWPORTS)
def test_a_declared_royal_shows_on_its_card_until_released(browser, floor_sign, name) -> None:  # noqa: F811
    renders, ids = floor_sign
    browser.run(lambda page: declaration_check(page, renders[6], ids[5], name), VIEWPORTS[name])


def declaration_check(page: Page, render: tuple, caribbean: int, name: str) -> None:
    html, path, jackpots = render
    page_open(page, html, path)
    snapshot_send(page, jackpots)
    page.evaluate("frame => window.__send(frame)", declaration(caribbean, "pending"))
    card = page.locator(f'.jackpot[data-jackpot-id="{caribbean}"]')
    expect(card.locator(".declaration")).to_have_text(BAND)
    assert page.locator(".declaration").count() == 1  # that card only
    measured(page, 6, f"{name}-declaration")
    page.evaluate("frame => window.__send(frame)", declaration(caribbean, "released"))
    expect(card.locator(".declaration")).to_have_count(0)
    expect(card).not_to_have_class("declared")


PENDING = {"it": "Jackpot vinto: in attesa di conferma dal collegamento"}


@pytest.mark.parametrize("name", VIEWPORTS)
def test_a_jackpot_pending_at_the_link_shows_on_its_card_until_decided(browser, floor_sign, name) -> None:  # noqa: F811
    renders, ids = floor_sign
    browser.run(lambda page: pending_check(page, renders[6], ids[5], name), VIEWPORTS[name])


def pending_check(page: Page, render: tuple, jackpot: int, name: str) -> None:
    html, path, jackpots = render
    page_open(page, html, path)
    snapshot_send(page, jackpots)
    page.evaluate("frame => window.__send(frame)", {"type": "pending", "jackpot": jackpot, "pending": True})
    card = page.locator(f'.jackpot[data-jackpot-id="{jackpot}"]')
    expect(card.locator(".declaration")).to_have_text(PENDING["it"])
    assert page.locator(".declaration").count() == 1  # that card only
    measured(page, 6, f"{name}-pending")
    # A table's declaration says more: it takes the band while both hold; the pending band comes back.
    page.evaluate("frame => window.__send(frame)", declaration(jackpot, "pending"))
    expect(card.locator(".declaration")).to_have_text(BAND)
    page.evaluate("frame => window.__send(frame)", declaration(jackpot, "released"))
    expect(card.locator(".declaration")).to_have_text(PENDING["it"])
    page.evaluate("frame => window.__send(frame)", {"type": "pending", "jackpot": jackpot, "pending": False})
    expect(card.locator(".declaration")).to_have_count(0)
    expect(card).not_to_have_class("declared")
