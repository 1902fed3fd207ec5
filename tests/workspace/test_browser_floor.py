"""The floor map, the machine panel, the venue overview and every report page in headless Chromium at
1440x900 and 1920x1080, served by uvicorn (the map's websocket needs ASGI): each fits, no console error, no
request to another host; events posted through the API reach the open map within 2 s. Screenshots go to
test-artifacts/."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from common.credentials import credential_issue
from jackpots.models import Hit
from slots.models import MachineKey
from tests.browser import ARTIFACTS
from tests.factories import BankFactory, ProgressiveMachineFactory, RoomFactory, SlotMachineFactory
from tests.floor.staff import level_seeded
from tests.workspace.test_browser import asgi_server, post_event
from tests.workspace.test_desk_browser import SIZES, Watched, chromium, fits, log_in, manager

pytestmark = [pytest.mark.browser, pytest.mark.postgres]

REPORTS = (
    "/floor/reports/",
    "/floor/reports/games/",
    "/floor/reports/room-hours/",
    "/floor/reports/liability/",
    "/floor/reports/level-history/",
)


def _floor() -> dict:
    """A room of two named banks (one on a progressive, with an unpaid hit) and a machine on its own."""
    now = timezone.now()
    room = RoomFactory(number=1, name="Sala Uno")
    vault = BankFactory(room=room, code="B1", name="Diamond Vault")
    slots = BankFactory(room=room, code="B2", name="Lucky Sevens")
    door = SlotMachineFactory(asset_number="NOG-0101", room=room, bank=vault, pos_x=1, pos_y=1, last_seen=now)
    player = SlotMachineFactory(asset_number="NOG-0102", room=room, bank=slots, pos_x=4, pos_y=1,
                                last_seen=now, last_game_at=now - timedelta(minutes=5))  # fmt: skip
    SlotMachineFactory(asset_number="NOG-0103", room=room, bank=vault, pos_x=2, pos_y=1, last_seen=now)
    member = ProgressiveMachineFactory(machine=door)
    level = level_seeded(progressive=member.progressive, reset_mc=50_000_000)
    Hit.objects.create(level=level, machine=door, at=now, amount_cents=50_000, level_seq=1, cycle=1)
    return {
        "door": door,
        "player": player,
        "door_key": credential_issue(MachineKey, kind="mach", machine=door)[1],
        "player_key": credential_issue(MachineKey, kind="mach", machine=player)[1],
    }


def _event(machine: str, seq: int, **fields) -> dict:
    return {"machine": machine, "seq": seq, "at": timezone.now().isoformat().replace("+00:00", "Z"), **fields}


def _live_events_reach_the_map(watched: Watched, url: str, floor: dict) -> None:
    page = watched.page
    door, player = floor["door"], floor["player"]
    expect(page.locator("#live-status")).to_have_attribute("data-state", "live")
    expect(page.locator(f"#machine-{door.pk}")).to_have_attribute("data-state", "idle")
    page.screenshot(path=str(ARTIFACTS / "floor-live-before.png"), full_page=True)
    assert (
        post_event(url, floor["door_key"], _event("NOG-0101", 1, type="status", status="door_open"))[
            "accepted"
        ]
        == 1
    )
    assert (
        post_event(url, floor["player_key"], _event("NOG-0102", 1, type="game", wager=450, win=0))["accepted"]
        == 1
    )
    expect(page.locator(f"#machine-{door.pk}")).to_have_attribute("data-state", "door_open", timeout=2_000)
    expect(page.locator(f"#machine-{player.pk}")).to_have_attribute("data-state", "playing", timeout=2_000)
    expect(page.locator('.count[data-state="door_open"]')).to_have_text("1", timeout=3_000)
    expect(page.locator("#floor-alerts")).to_contain_text("NOG-0101")
    page.screenshot(path=str(ARTIFACTS / "floor-live-after.png"), full_page=True)


def _map_and_panel(watched: Watched, url: str, size: tuple[int, int]) -> None:
    page = watched.page
    page.goto(f"{url}/floor/NOG/1/")
    expect(page.locator(".bank-name", has_text="Diamond Vault")).to_be_visible()
    expect(page.locator(".bank-name", has_text="Lucky Sevens")).to_be_visible()
    expect(page.locator(".machine.has-hit")).to_have_count(1)
    expect(page.locator("#live-status")).to_have_attribute("data-state", "live")
    fits(page)
    page.screenshot(path=str(ARTIFACTS / f"floor-map-{size[0]}.png"), full_page=True)
    page.locator("#floor-map .machine", has_text="NOG-0101").click()
    expect(page.locator("#panel-asset")).to_contain_text("NOG-0101")
    fits(page)
    page.screenshot(path=str(ARTIFACTS / f"floor-panel-{size[0]}.png"), full_page=True)


def _overview_and_reports(watched: Watched, url: str, size: tuple[int, int]) -> None:
    page = watched.page
    for path in ("/floor/NOG/", *REPORTS):
        page.goto(f"{url}{path}")
        expect(page.locator("nav.ws-nav")).to_contain_text("Reports")
        fits(page)
        name = path.strip("/").replace("/", "-")
        page.screenshot(path=str(ARTIFACTS / f"{name}-{size[0]}.png"), full_page=True)
    # The level history opens on the first level, today: a chart with both axes labelled in euros and time.
    page.goto(f"{url}/floor/reports/level-history/")
    expect(page.locator("svg.chart text", has_text="€ 500.00").first).to_be_visible()


@pytest.mark.django_db(transaction=True)
def test_floor_pages_in_chromium():
    manager("giulia", "Giulia", "Rossi")
    floor = _floor()
    with asgi_server() as url, chromium() as browser:
        for index, size in enumerate(SIZES):
            watched = Watched(browser, url, size)
            log_in(watched.page, url, "giulia")
            _map_and_panel(watched, url, size)
            if index == 0:
                watched.page.goto(f"{url}/floor/NOG/1/")
                _live_events_reach_the_map(watched, url, floor)
            _overview_and_reports(watched, url, size)
            watched.close()
