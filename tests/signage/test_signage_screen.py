"""What a sign says and how it looks, in headless Chromium: level names, amounts and the mystery teaser
in the screen's language (Italian and English), a theme applied without a reload, the WIN naming room
and game, and the attract state. The page is the real one; the frames are the server's."""

from __future__ import annotations

import pytest
from django.db import transaction
from django.test.utils import override_settings
from playwright.sync_api import Page, expect

from signage.models import SignTheme
from signage.themes import theme_public
from tests.browser import ARTIFACTS
from tests.factories import SignageScreenFactory, SlotMachineFactory
from tests.signage.pages import BrowserThread, floor_create, page_open, sign_render, snapshot_send
from tests.signage.test_signage_layout import MEASURE, VIEWPORTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

# Super Spin, Grease, Venezia Mystery: FLOOR's first three.
SHOWN = 3


@pytest.fixture(scope="module")
def browser():
    browser = BrowserThread()
    yield browser
    browser.close()


@pytest.fixture(scope="module")
def signs(django_db_setup, django_db_blocker):
    """The same three progressives on an Italian and an English screen, rendered once for the module:
    what the tests use is the pages and snapshots, plain data, so the rows are rolled back at once."""
    with (
        django_db_blocker.unblock(),
        override_settings(SIGNAGE_ATTRACT_SECONDS=1),
        transaction.atomic(),
    ):
        machine = SlotMachineFactory()
        venue = machine.room.venue
        ids = floor_create(venue)[:SHOWN]
        italian = SignageScreenFactory(slug="nog-1", venue=venue, name="Sala Uno", language="it")
        english = SignageScreenFactory(slug="nog-2", venue=venue, name="Sala Due", language="en")
        rendered = {"it": sign_render(italian, ids), "en": sign_render(english, ids)}, ids
        transaction.set_rollback(True)
    return rendered


def top_level(render: tuple, name: str) -> dict:
    """The top level of the progressive ``name`` in the render's snapshot."""
    return next(jackpot for jackpot in render[2] if jackpot["name"] == name)["levels"][0]


def opened(page: Page, render: tuple) -> None:
    html, path, jackpots = render
    page_open(page, html, path)
    snapshot_send(page, jackpots)


def card(page: Page, progressive_id: int):
    return page.locator(f'.jackpot[data-jackpot-id="{progressive_id}"]')


def words_check(page: Page, render: tuple, ids: list[int], expected: dict) -> None:
    opened(page, render)
    super_spin, grease, mystery = (card(page, pid) for pid in ids)
    # "Super Spin" is the progressive and its only level: said once.
    expect(super_spin.locator(".jackpot-name")).to_have_text("Super Spin")
    assert super_spin.locator(".level-name").count() == 0
    expect(super_spin.locator(".amount")).to_have_text(expected["super_spin"])
    expect(grease.locator(".level-name")).to_have_text(["Grand", "Major", "Minor", "Mini", "Bonus"])
    expect(grease.locator(".amount")).to_have_text(expected["grease"])
    expect(mystery.locator(".level-name")).to_have_text(expected["mystery"])
    expect(mystery.locator(".amount")).to_have_text(expected["mystery_amount"])
    expect(mystery.locator(".teaser")).to_have_text(expected["teaser"])
    expect(page.locator("#status")).to_have_text(expected["live"])
    page.screenshot(path=str(ARTIFACTS / f"signage-words-{expected['language']}.png"))


WORDS = {
    "it": {
        "language": "it",
        "super_spin": "1.151.748,00 €",
        "grease": ["5.873,41 €", "1.204,99 €", "233,10 €", "61,75 €", "12,40 €"],
        "mystery": "Mistero",
        "mystery_amount": "612,34 €",
        "teaser": "Deve uscire entro 1.000,00 €",
        "live": "In diretta",
    },
    "en": {
        "language": "en",
        "super_spin": "€1,151,748.00",
        "grease": ["€5,873.41", "€1,204.99", "€233.10", "€61.75", "€12.40"],
        "mystery": "Mystery",
        "mystery_amount": "€612.34",
        "teaser": "Must hit by €1,000.00",
        "live": "Live",
    },
}


@pytest.mark.parametrize("language", WORDS)
def test_level_names_amounts_and_the_teaser_in_the_screens_language(browser, signs, language) -> None:
    renders, ids = signs
    browser.run(
        lambda page: words_check(page, renders[language], ids, WORDS[language]), VIEWPORTS["1920x1080"]
    )


def theme_check(page: Page, render: tuple, grease: int, frame: dict) -> None:
    opened(page, render)
    page.evaluate("() => { window.__loaded = 'once'; }")
    target = card(page, grease)
    assert target.evaluate("el => getComputedStyle(el).borderTopColor") == "rgb(217, 180, 90)"  # classic gold
    page.evaluate("frame => window.__send(frame)", frame)
    expect(target.locator(".jackpot-name")).to_have_text("Grease Blu")
    assert target.evaluate("el => getComputedStyle(el).borderTopColor") == "rgb(0, 170, 255)"
    assert target.evaluate("el => getComputedStyle(el).getPropertyValue('--background')") == "#123a6b"
    assert target.get_attribute("data-preset") == "ice"
    assert page.evaluate("() => window.__loaded") == "once"  # the same page: no reload
    assert page.evaluate(MEASURE)["problems"] == []
    page.screenshot(path=str(ARTIFACTS / "signage-theme-ice-1080x1920.png"))


def test_a_theme_frame_recolours_its_card_without_a_reload(browser, signs) -> None:
    renders, ids = signs
    grease = ids[1]
    theme = SignTheme(
        progressive_id=grease, preset=SignTheme.Preset.ICE, title="Grease Blu", accent="#00AAFF"
    )
    frame = {"type": "theme", "jackpot": grease, "theme": theme_public(theme, "Grease")}
    browser.run(lambda page: theme_check(page, renders["it"], grease, frame), VIEWPORTS["1080x1920"])


def win_check(page: Page, render: tuple, grease_grand: int, name: str) -> None:
    opened(page, render)
    page.evaluate(
        "level => window.__send({type: 'hit', level: level, amount_eur: '5873.41', machine: 'NOG-0005',"
        " place: 'Sala Uno · Grease', reset_eur: '5000.00', seq: 9})",
        grease_grand,
    )
    expect(page.locator("#win")).to_be_visible()
    expect(page.locator("#win-level")).to_have_text("Grease · Grand")
    expect(page.locator("#win-amount")).to_have_text("5.873,41 €")
    expect(page.locator("#win-place")).to_have_text("Sala Uno · Grease")
    expect(page.locator("#win-machine")).to_have_text("NOG-0005")
    cut = page.evaluate(
        "() => [...document.querySelectorAll('#win-card .line')]"
        ".filter(line => line.scrollWidth > line.clientWidth + 1).map(line => line.textContent)"
    )
    assert cut == []
    assert page.evaluate(
        "() => document.getElementById('win-card').scrollHeight <= "
        "document.getElementById('win-card').clientHeight + 1"
    )
    page.screenshot(path=str(ARTIFACTS / f"signage-win-{name}.png"))


@pytest.mark.parametrize("name", VIEWPORTS)
def test_the_win_names_room_game_and_machine(browser, signs, name) -> None:
    renders, _ids = signs
    grand = top_level(renders["it"], "Grease")["id"]
    browser.run(lambda page: win_check(page, renders["it"], grand, name), VIEWPORTS[name])


def attract_check(page: Page, render: tuple, level: dict) -> None:
    opened(page, render)
    assert page.get_attribute("#sign", "data-attract") is None
    page.wait_for_selector("#sign[data-attract='on']", timeout=5000)  # SIGNAGE_ATTRACT_SECONDS = 1
    page.screenshot(path=str(ARTIFACTS / "signage-attract-1920x1080.png"))
    page.evaluate(
        "level => window.__send({type: 'update',"
        " levels: [{id: level.id, amount_eur: '5900.00', seq: level.seq + 1}]})",
        level,
    )
    assert page.get_attribute("#sign", "data-attract") is None


def test_a_sign_with_nothing_new_plays_its_attract_state_until_the_next_change(browser, signs) -> None:
    renders, _ids = signs
    level = top_level(renders["it"], "Grease")
    browser.run(lambda page: attract_check(page, renders["it"], level), VIEWPORTS["1920x1080"])
