"""The hits desk tells of a new hit (issue 24, finding 10): a sound unless turned off (remembered), the
count of new hits in the tab's title, a browser notification where allowed. Headless Chromium; the
notification and the sound are recorded by the page (init script) rather than heard."""

from __future__ import annotations

import threading

import pytest
from playwright.sync_api import expect

from jackpots.models import Hit
from tests.workspace.helpers import hit_on
from tests.workspace.test_desk_browser import Watched, chromium, log_in, manager

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Notifications granted and recorded; every oscillator started counted (two per chime).
RECORDER = """
window.__notes = [];
window.__tones = 0;
window.Notification = function (title, options) { window.__notes.push([title, options.body]); };
window.Notification.permission = "granted";
window.Notification.requestPermission = function () { return Promise.resolve("granted"); };
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) { window.__tones += 1; return start.apply(this, args); };
"""


def _hit_elsewhere(asset: str, name: str) -> Hit:
    """A hit recorded from another thread: this one holds Playwright's event loop."""
    made: list[Hit] = []
    thread = threading.Thread(target=lambda: made.append(hit_on(asset, 70_000_000, name)))
    thread.start()
    thread.join()
    return made[0]


def test_a_new_hit_sounds_counts_in_the_title_and_notifies(live_server):
    manager("giulia", "Giulia", "Rossi")
    hit_on("NOG-0005", 50_000_000)
    with chromium() as browser:
        watched = Watched(browser, live_server.url, (1440, 900))
        page = watched.page
        page.add_init_script(RECORDER)
        log_in(page, live_server.url, "giulia")
        title = page.title()
        toggle = page.locator("#desk-sound")
        expect(toggle).to_have_attribute("aria-pressed", "true")
        page.locator("h1, h2").first.click()  # a person's first click lets the page sound
        first = _hit_elsewhere("NOG-0011", "King of Pop")
        expect(page.locator(f"#hit-{first.pk}")).to_be_visible(timeout=8_000)
        expect(page).to_have_title(f"(1) {title}", timeout=2_000)
        assert page.evaluate("window.__tones") == 2
        notes = page.evaluate("window.__notes")
        assert len(notes) == 1 and notes[0][0] == "New hit on the desk" and "NOG-0011" in notes[0][1]

        # Sound off, remembered over a reload: the next hit counts and notifies, silently.
        toggle.click()
        expect(toggle).to_have_attribute("aria-pressed", "false")
        page.reload()
        expect(page.locator("#desk-sound")).to_have_text("Sound off")
        page.locator("h1, h2").first.click()
        second = _hit_elsewhere("NOG-0012", "Grease")
        expect(page.locator(f"#hit-{second.pk}")).to_be_visible(timeout=8_000)
        expect(page).to_have_title(f"(1) {title}", timeout=2_000)
        assert page.evaluate("window.__tones") == 0
        assert len(page.evaluate("window.__notes")) == 1
        watched.close()
