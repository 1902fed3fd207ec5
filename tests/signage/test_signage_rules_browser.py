"""The rules in headless Chromium: the sign's rules line at 1920x1080 and 1080x1920 in Italian and
English (the hero's rules first, in its colours, every line of the tables' rules fitted to the width,
never wrapped or cut, a ``rules`` frame shown at once, the next line after its time), and the public page
at 1440x900 and on a phone (no sideways scrolling, every line inside the card). No console error and no
request to another host (``BrowserThread``). Screenshots in test-artifacts/."""

from __future__ import annotations

import pytest
from django.test import Client
from playwright.sync_api import Page

from jackpots.models import Progressive
from tables.seed import CARIBBEAN_STUD, JUMBO_7, tables_seed
from tests.browser import ARTIFACTS
from tests.factories import LevelFactory, ProgressiveFactory, SignageScreenFactory, SlotMachineFactory
from tests.signage.pages import BrowserThread, floor_create, page_open, sign_render, snapshot_send
from tests.signage.test_rules import CARIBBEAN_EN, CARIBBEAN_IT, JUMBO_EN, JUMBO_IT

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

SIGN_VIEWPORTS = {"1920x1080": {"width": 1920, "height": 1080}, "1080x1920": {"width": 1080, "height": 1920}}
PAGE_VIEWPORTS = {"1440x900": {"width": 1440, "height": 900}, "390x844": {"width": 390, "height": 844}}
TABLE_LINES = {"it": CARIBBEAN_IT + JUMBO_IT, "en": CARIBBEAN_EN + JUMBO_EN}
FIRST_LINE = {"it": "Ogni puntata partecipa", "en": "Every bet qualifies"}

STRIP = """
() => {
  const strip = document.getElementById('rules');
  const box = strip.getBoundingClientRect();
  const root = document.documentElement;
  const hero = document.querySelector('.jackpot.hero');
  return {
    hidden: strip.hidden,
    name: strip.querySelector('.rules-name').textContent,
    text: strip.querySelector('.rules-text').textContent,
    cut: strip.scrollWidth > strip.clientWidth + 1,
    wraps: box.height > 2 * parseFloat(getComputedStyle(strip).fontSize) * 1.25 + 1,
    inside: box.left >= 0 && box.right <= innerWidth && box.top >= 0 && box.bottom <= innerHeight,
    scrolls: root.scrollWidth > innerWidth || root.scrollHeight > innerHeight,
    px: parseFloat(getComputedStyle(strip).fontSize),
    accent: strip.style.getPropertyValue('--accent'),
    heroAccent: hero.style.getPropertyValue('--accent'),
    cardsCut: [...document.querySelectorAll('.jackpot')]
      .filter(card => card.scrollHeight > card.clientHeight + 1).length,
  };
}
"""


@pytest.fixture(scope="module")
def browser():
    browser = BrowserThread()
    yield browser
    browser.close()


@pytest.fixture
def sign_renders(db) -> dict:
    """The casino's eight progressives on an Italian and an English screen: (page, path, snapshot)."""
    machine = SlotMachineFactory()
    ids = floor_create(machine.room.venue)
    renders = {}
    for language in ("it", "en"):
        screen = SignageScreenFactory(
            slug=f"nog-{language}", venue=machine.room.venue, name="Sala Uno", language=language
        )
        renders[language] = sign_render(screen, ids)
    return {"renders": renders, "hero": ids[0]}


def strip_check(page: Page, where: str) -> dict:
    found = page.evaluate(STRIP)
    assert found["hidden"] is False, where
    assert (found["cut"], found["wraps"], found["inside"], found["scrolls"]) == (False, False, True, False), (
        where
    )
    assert found["cardsCut"] == 0, where
    assert found["px"] >= 12, f"{where}: {found['text']} at {found['px']} px"
    return found


def sign_rules_check(page: Page, render: tuple, hero: int, language: str, name: str) -> None:
    html, path, jackpots = render
    page_open(page, html, path)
    snapshot_send(page, jackpots)
    found = strip_check(page, f"{language} {name} snapshot")
    # The hero's rules first, in the hero's colours, in the screen's language.
    assert (found["name"], found["text"]) == ("Super Spin", FIRST_LINE[language])
    assert found["accent"] == found["heroAccent"] != ""
    page.screenshot(path=str(ARTIFACTS / f"signage-rules-{language}-{name}.png"))
    # Every line of the tables' rules (the longest the casino has) fits the width, one at a time.
    for line in TABLE_LINES[language]:
        page.evaluate(
            "([id, line, lang]) => window.__send({type: 'rules', jackpot: id, rules: {[lang]: [line]}})",
            [hero, line, language],
        )
        found = strip_check(page, f"{language} {name}: {line}")
        assert found["text"] == line
    page.screenshot(path=str(ARTIFACTS / f"signage-rules-{language}-{name}-longest.png"))


@pytest.mark.parametrize("language", ["it", "en"])
@pytest.mark.parametrize("name", SIGN_VIEWPORTS)
def test_the_sign_shows_the_rules_line_fitted_in_its_language(browser, sign_renders, language, name) -> None:
    render = sign_renders["renders"][language]
    browser.run(
        lambda page: sign_rules_check(page, render, sign_renders["hero"], language, name),
        SIGN_VIEWPORTS[name],
    )


def rotation_check(page: Page, render: tuple) -> None:
    html, path, jackpots = render
    page_open(page, html, path)
    snapshot_send(page, jackpots)
    first = page.evaluate(STRIP)["text"]
    page.wait_for_function(
        "first => document.querySelector('#rules .rules-text').textContent !== first", arg=first, timeout=9000
    )
    second = page.evaluate(STRIP)
    hero_rules = jackpots[[j["name"] for j in jackpots].index("Super Spin")]["rules"]["it"]
    assert (first, second["text"]) == (hero_rules[0], hero_rules[1])


def test_the_sign_shows_the_next_line_after_its_time(browser, sign_renders) -> None:
    browser.run(lambda page: rotation_check(page, sign_renders["renders"]["it"]), SIGN_VIEWPORTS["1920x1080"])


# --- the public page ----------------------------------------------------------------------------------

PAGE = """
() => {
  const root = document.documentElement;
  const card = document.querySelector('.rules-card').getBoundingClientRect();
  const outside = [...document.querySelectorAll('.rules-card li, .rules-card h1, .rules-card h2')]
    .filter(el => {
      const r = el.getBoundingClientRect();
      return r.left < card.left - 1 || r.right > card.right + 1;
    })
    .map(el => el.textContent);
  return {scrolls: root.scrollWidth > innerWidth + 1, outside,
          lines: [...document.querySelectorAll('li[data-rule]')].map(li => li.textContent)};
}
"""


@pytest.fixture
def rules_pages(db) -> dict:
    """The rules pages of Caribbean Stud, Jumbo 7 and a mystery level, in Italian and English."""
    tables_seed()
    mystery = ProgressiveFactory(name="Venezia Mystery")
    LevelFactory(progressive=mystery, name="Mistero", reset_mc=50_000_000, limit_mc=100_000_000, mystery=True)
    pages = {}
    for progressive in Progressive.objects.filter(name__in=[CARIBBEAN_STUD, JUMBO_7, "Venezia Mystery"]):
        for language in ("it", "en"):
            path = f"/rules/{progressive.id}/?lang={language}"
            pages[(progressive.name, language)] = (Client().get(path).content.decode(), path)
    return pages


def page_check(page: Page, pages: dict, name: str) -> None:
    for (progressive, language), (html, path) in pages.items():
        page_open(page, html, path, sign=False)
        found = page.evaluate(PAGE)
        where = f"{progressive} {language} {name}"
        assert (found["scrolls"], found["outside"]) == (False, []), where
        if progressive == JUMBO_7:
            expected = JUMBO_IT if language == "it" else JUMBO_EN
            assert sorted(found["lines"]) == sorted(expected), where
        page.screenshot(
            path=str(ARTIFACTS / f"rules-page-{progressive[:8]}-{language}-{name}.png"), full_page=True
        )


@pytest.mark.parametrize("name", PAGE_VIEWPORTS)
def test_the_public_rules_page_fits_in_italian_and_english(browser, rules_pages, name) -> None:
    browser.run(lambda page: page_check(page, rules_pages, name), PAGE_VIEWPORTS[name])
