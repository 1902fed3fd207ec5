"""End to end: games posted to the real server reach the screen page in headless Chromium, as euros."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.db import connection
from django.db.models import F
from playwright.sync_api import sync_playwright
from websockets.sync.client import connect as ws_connect

from bench.stack import Stack
from common.credentials import credential_issue, screen_token_issue
from jackpots.models import Hit, Level
from slots.models import GatewayKey, SlotMachine
from tests.browser import ARTIFACTS, chromium_launch
from tests.factories import (
    LevelFactory,
    ProgressiveFactory,
    ProgressiveMachineFactory,
    SignageScreenFactory,
    SlotMachineFactory,
)


def database_url() -> str:
    db = connection.settings_dict
    return f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def in_thread(write: Callable[[], object]) -> None:
    """Playwright's sync API keeps an event loop in the test's thread, where Django refuses the ORM."""

    def run() -> None:
        try:
            write()
        finally:
            connection.close()

    with ThreadPoolExecutor(1) as pool:
        pool.submit(run).result()


def post_events(url: str, key: str, events: list[dict]) -> dict:
    at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    body = {"events": [{"at": at, **event} for event in events]}
    request = urllib.request.Request(
        f"{url}/api/v1/events",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


WAGERS = [450] * 7


@dataclass
class _Floor:
    level: Level
    machine: SlotMachine
    token: str
    key: str


def _floor() -> _Floor:
    """Diamond Vault's Grand (€1,000.00 reset, 1%) on one machine, shown on the screen nog-1."""
    progressive = ProgressiveFactory(name="Diamond Vault")
    level = LevelFactory(
        progressive=progressive, name="Grand", reset_mc=100_000_000, rate=Decimal("0.01"), reserve_rate=0
    )
    machine = SlotMachineFactory(asset_number="NOG-0101", min_bet_cents=50, max_bet_cents=450)
    ProgressiveMachineFactory(progressive=progressive, machine=machine)
    screen = SignageScreenFactory(slug="nog-1", venue=machine.room.venue, room=machine.room, name="Sala Uno")
    screen.progressives.add(progressive)
    _credential, key = credential_issue(GatewayKey, kind="gw", venue=machine.room.venue)
    return _Floor(level, machine, screen_token_issue(screen), key)


def _games_shown(page, stack: Stack, floor: _Floor) -> None:
    """Seven games at €4.50: 3,150 cents at 1% is 31.5 cents, €1,000.315, which a sign shows rounded down."""
    amount = page.locator(f'.amount[data-level-id="{floor.level.id}"]')
    games = [
        {"machine": "NOG-0101", "seq": seq, "type": "game", "wager": wager, "win": 0}
        for seq, wager in enumerate(WAGERS, start=1)
    ]
    answer = post_events(stack.url, floor.key, games)
    assert answer == {"accepted": 7, "duplicates": 0, "rejected": []}
    page.wait_for_function(
        "el => el.textContent === '1.000,31 €'", arg=amount.element_handle(), timeout=15_000
    )
    page.screenshot(path=str(ARTIFACTS / "signage-e2e-1920x1080.png"))
    assert amount.inner_text() == "1.000,31 €"
    assert amount.get_attribute("data-amount-eur") == "1000.31"


def _hit_shown(page, stack: Stack, floor: _Floor) -> None:
    """The machine reports a hit: WIN with the machine and the amount, then the amount restarts."""
    amount = page.locator(f'.amount[data-level-id="{floor.level.id}"]')
    hit = {"machine": "NOG-0101", "seq": 8, "type": "jackpot", "level": floor.level.id, "amount": 100031}
    assert post_events(stack.url, floor.key, [hit]) == {"accepted": 1, "duplicates": 0, "rejected": []}
    page.wait_for_selector("#win:not([hidden])", timeout=15_000)
    assert page.inner_text("#win-amount") == "1.000,31 €"
    assert page.inner_text("#win-machine") == "NOG-0101"
    assert page.inner_text("#win-level") == "Diamond Vault · Grand"
    page.screenshot(path=str(ARTIFACTS / "signage-e2e-win.png"))
    page.wait_for_function(
        "el => el.textContent === '1.000,00 €'", arg=amount.element_handle(), timeout=15_000
    )


def _restart_resynced(page, stack: Stack, floor: _Floor) -> None:
    """The server restarts; meanwhile the level moved. The page reconnects and resyncs from the snapshot."""
    stack.server_stop()
    page.wait_for_function("document.getElementById('sign').dataset.state === 'offline'", timeout=10_000)
    level_pk = floor.level.pk
    in_thread(lambda: Level.objects.filter(pk=level_pk).update(current_mc=123_456_789, seq=F("seq") + 1))
    stack.server_start()
    # A snapshot rebuilds the cards: look the amount up again rather than hold the old element.
    page.wait_for_function(
        "sel => document.querySelector(sel)?.textContent === '1.234,56 €'",
        arg=f'.amount[data-level-id="{level_pk}"]',
        timeout=30_000,
    )
    assert page.get_attribute("#sign", "data-state") == "live"


def _link_down_shown(page, floor: _Floor) -> None:
    """No machine online: the link goes down and the card alternates amount and warning."""
    machine_pk = floor.machine.pk
    in_thread(lambda: SlotMachine.objects.filter(pk=machine_pk).update(status=SlotMachine.Status.OFFLINE))
    page.wait_for_selector(".jackpot.down", timeout=15_000)
    page.evaluate("document.getElementById('win').hidden = true")
    page.set_viewport_size({"width": 1080, "height": 1920})
    page.wait_for_selector(".jackpot.down.show-warning", timeout=10_000)
    assert page.inner_text(".jackpot.down .level.top .warning") == "Collegamento interrotto"
    page.screenshot(path=str(ARTIFACTS / "signage-e2e-link-down-1080x1920.png"))


@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_games_posted_to_the_api_show_on_the_screen_as_exact_euros(settings) -> None:
    floor = _floor()
    expected_mc = 100_000_000 + int(sum(WAGERS) * Decimal("0.01") * 1000)
    with (
        Stack(database_url(), settings.REDIS_URL) as stack,
        sync_playwright() as playwright,
    ):
        browser = chromium_launch(playwright)
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        page.goto(f"{stack.url}/signage/nog-1/?token={floor.token}")
        amount = page.locator(f'.amount[data-level-id="{floor.level.id}"]')
        page.wait_for_function("document.getElementById('sign').dataset.state === 'live'", timeout=15_000)
        assert amount.inner_text() == "1.000,00 €"
        # Frames travel uncompressed (uvicorn --ws-per-message-deflate false), though clients offer it.
        sign_url = f"{stack.url.replace('http://', 'ws://')}/ws/signage/nog-1/?token={floor.token}"
        with ws_connect(sign_url, origin=stack.url) as socket:
            assert "Sec-WebSocket-Extensions" not in socket.response.headers
            assert json.loads(socket.recv(timeout=5))["type"] == "snapshot"
        _games_shown(page, stack, floor)
        _hit_shown(page, stack, floor)
        _restart_resynced(page, stack, floor)
        _link_down_shown(page, floor)
        browser.close()

    assert expected_mc == 100_031_500
    hit_record = Hit.objects.get(level=floor.level)
    assert (hit_record.amount_cents, hit_record.machine_id) == (100_031, floor.machine.id)
