"""The sign on a 1080p TV and a portrait totem with 1, 3, 6 and 8 progressives: every text inside its
card, nothing cut or wrapped, no scrolling, the cards filling the screen, the largest prize the largest
card; a link down changes only its card and the footer. Screenshots in test-artifacts/."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser import ARTIFACTS
from tests.factories import SignageScreenFactory, SlotMachineFactory
from tests.signage.pages import (
    BrowserThread,
    floor_create,
    page_open,
    sign_render,
    snapshot_send,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

VIEWPORTS = {"1920x1080": {"width": 1920, "height": 1080}, "1080x1920": {"width": 1080, "height": 1920}}
COUNTS = (1, 3, 6, 8)

# Every problem the page has, as sentences; and each card's area and top amount's font size.
MEASURE = """
() => {
  const problems = [];
  const inside = (r, box) => r.left >= box.left - 0.5 && r.right <= box.right + 0.5
    && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
  const root = document.documentElement;
  if (root.scrollWidth > innerWidth || root.scrollHeight > innerHeight) problems.push('the page scrolls');
  const room = document.querySelector('.room');
  if (room.scrollWidth > room.clientWidth) problems.push('the room name is cut');
  const list = document.getElementById('jackpots').getBoundingClientRect();
  const cards = [...document.querySelectorAll('.jackpot')].map(card => {
    const id = card.dataset.jackpotId;
    const box = card.getBoundingClientRect();
    if (!inside(box, list)) problems.push(`card ${id} is outside the list`);
    if (card.scrollHeight > card.clientHeight + 1) problems.push(`card ${id} is too short for its text`);
    card.querySelectorAll('.line').forEach(line => {
      if (line.scrollWidth > line.clientWidth + 1) problems.push(`card ${id}: "${line.textContent}" is cut`);
      if (line.getBoundingClientRect().height > 1.6 * parseFloat(getComputedStyle(line).fontSize) * 2.4)
        problems.push(`card ${id}: "${line.textContent}" wraps`);
    });
    const walker = document.createTreeWalker(card, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      if (!inside(range.getBoundingClientRect(), box))
        problems.push(`card ${id}: "${node.textContent}" is outside`);
    }
    const amount = card.querySelector('.level.top .amount');
    return {id: Number(id), hero: card.classList.contains('hero'), area: box.width * box.height,
            box: [box.left, box.top, box.right, box.bottom],
            amountPx: parseFloat(getComputedStyle(amount).fontSize)};
  });
  cards.forEach((a, i) => cards.slice(i + 1).forEach(b => {
    const overlap = Math.min(a.box[2], b.box[2]) - Math.max(a.box[0], b.box[0]) > 1
      && Math.min(a.box[3], b.box[3]) - Math.max(a.box[1], b.box[1]) > 1;
    if (overlap) problems.push(`cards ${a.id} and ${b.id} overlap`);
  }));
  const covered = cards.reduce((sum, card) => sum + card.area, 0) / (list.width * list.height);
  return {problems, cards, covered};
}
"""


@pytest.fixture
def floor_sign(db):
    """The casino's eight progressives and a Ca' Noghera screen named "Sala Uno", in Italian: the page
    and the snapshots for 1, 3, 6 and 8 of them."""
    machine = SlotMachineFactory()
    screen = SignageScreenFactory(slug="nog-1", venue=machine.room.venue, name="Sala Uno", language="it")
    ids = floor_create(machine.room.venue)
    return {count: sign_render(screen, ids[:count]) for count in COUNTS}, ids


@pytest.fixture(scope="module")
def browser():
    browser = BrowserThread()
    yield browser
    browser.close()


def measured(page: Page, count: int, name: str) -> dict:
    found = page.evaluate(MEASURE)
    page.screenshot(path=str(ARTIFACTS / f"signage-layout-{name}-{count}.png"))
    assert found["problems"] == [], f"{count} progressives at {name}"
    return found


@pytest.mark.parametrize("name", VIEWPORTS)
def test_one_to_eight_progressives_fill_the_screen_with_the_largest_prize_the_hero(
    browser, floor_sign, name
) -> None:
    renders, ids = floor_sign
    browser.run(lambda page: layouts_check(page, renders, ids, name), VIEWPORTS[name])


def layouts_check(page: Page, renders: dict, ids: list[int], name: str) -> None:
    # One page for every count, as a screen whose progressives change gets a new snapshot.
    page_open(page, renders[COUNTS[0]][0], renders[COUNTS[0]][1])
    for count in COUNTS:
        snapshot_send(page, renders[count][2])
        found = measured(page, count, name)
        cards = {card["id"]: card for card in found["cards"]}
        assert sorted(cards) == sorted(ids[:count])
        hero = cards[ids[0]]  # Super Spin, €1,151,748.00: the largest prize
        assert hero["hero"] is True
        assert [card["id"] for card in found["cards"] if card["hero"]] == [ids[0]]
        assert all(hero["area"] > card["area"] for card in cards.values() if card is not hero)
        assert all(hero["amountPx"] >= card["amountPx"] for card in cards.values())
        # Legible across a room, and the cards fill the space the screen gives them (gaps aside).
        assert min(card["amountPx"] for card in cards.values()) >= 28, f"{count} at {name}"
        assert found["covered"] >= 0.85, f"{count} at {name}"


@pytest.mark.parametrize("name", VIEWPORTS)
def test_a_link_down_changes_only_its_card_and_the_footer(browser, floor_sign, name) -> None:
    renders, ids = floor_sign
    browser.run(lambda page: link_down_check(page, renders[6], ids[2], name), VIEWPORTS[name])


def link_down_check(page: Page, render: tuple, down: int, name: str) -> None:
    """``down``: Venezia Mystery."""
    html, path, jackpots = render
    page_open(page, html, path)
    snapshot_send(page, jackpots)
    expect(page.locator("#status")).to_have_text("In diretta")
    before = page.evaluate("() => [...document.querySelectorAll('.jackpot')].map(card => card.outerHTML)")
    page.evaluate("id => window.__send({type: 'link', jackpot: id, state: 'down'})", down)
    card = page.locator(f'.jackpot[data-jackpot-id="{down}"]')
    expect(card).to_have_class("jackpot down show-warning", timeout=5000)
    warning = card.locator(".level.top .warning")
    expect(warning).to_be_visible()
    expect(warning).to_have_text("Collegamento interrotto")
    expect(card.locator(".level.top .amount")).to_be_hidden()
    expect(page.locator("#status")).to_have_text("Collegamento interrotto: Venezia Mystery")
    assert page.get_attribute("#sign", "data-state") == "degraded"
    after = page.evaluate("() => [...document.querySelectorAll('.jackpot')].map(card => card.outerHTML)")
    changed = [i for i, (old, new) in enumerate(zip(before, after, strict=True)) if old != new]
    cards = page.locator(".jackpot")
    assert [cards.nth(i).get_attribute("data-jackpot-id") for i in changed] == [str(down)]
    measured(page, 6, f"{name}-link-down-warning")
    # The other half of the alternation: the amount again, in the same box, and still inside.
    expect(card).to_have_class("jackpot down", timeout=5000)
    expect(card.locator(".level.top .amount")).to_be_visible()
    measured(page, 6, f"{name}-link-down-amount")
    page.evaluate("id => window.__send({type: 'link', jackpot: id, state: 'up'})", down)
    expect(page.locator("#status")).to_have_text("In diretta")
