"""The workspace in headless Chromium: paying a hit, the live floor map, a report. Screenshots go to
test-artifacts/."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import Group, User
from django.db import connection
from django.utils import timezone
from playwright.sync_api import Page, expect, sync_playwright

from bench.stack import free_port
from common.credentials import credential_issue
from floor.roles import FLOOR_MANAGER
from jackpots.models import Hit
from jackpots.services import level_hit
from slots.models import MachineEvent, MachineKey
from tests.browser import ARTIFACTS, chromium_launch
from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, RoomFactory, SlotMachineFactory
from tests.floor.staff import level_seeded
from tests.staff_fixtures import game_event

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "a-long-floor-password-1"

pytestmark = pytest.mark.browser


@contextmanager
def browser_page() -> Iterator[Page]:
    with sync_playwright() as playwright:
        browser = chromium_launch(playwright)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.set_default_timeout(15_000)
            yield page
        finally:
            browser.close()


def floor_manager(username: str = "giulia") -> User:
    user = User.objects.create_user(username, password=PASSWORD, is_staff=True)
    user.groups.add(Group.objects.get(name=FLOOR_MANAGER))
    return user


def log_in(page: Page, base_url: str, username: str) -> None:
    page.goto(f"{base_url}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    expect(page.locator("#user-tools")).to_contain_text(username)


@pytest.mark.django_db(transaction=True)
def test_manager_logs_in_verifies_and_pays_a_hit(live_server):
    manager = floor_manager()
    machine = SlotMachineFactory(asset_number="NOG-0104")
    progressive = ProgressiveFactory(name="Diamond Vault")
    ProgressiveMachineFactory(progressive=progressive, machine=machine)
    hit = level_hit(level_seeded(progressive=progressive, reset_mc=50_000_000).pk, machine_id=machine.pk)

    with browser_page() as page:
        log_in(page, live_server.url, manager.username)
        page.goto(f"{live_server.url}/admin/jackpots/hit/")
        row = page.locator("#result_list tbody tr").first
        expect(row).to_contain_text("NOG-0104")
        expect(row).to_contain_text("500.00")
        for action, done in (("verify_selected", "Verified"), ("pay_selected", "Paid")):
            page.locator("#result_list tbody tr").first.locator("input.action-select").check()
            page.select_option("select[name=action]", action)
            page.click("button[name=index]")
            expect(page.locator(".messagelist")).to_contain_text(done)
        expect(page.locator("#result_list tbody tr").first).to_contain_text("Paid")
        page.screenshot(path=str(ARTIFACTS / "hits-queue-paid.png"), full_page=True)

    hit.refresh_from_db()
    assert (hit.state, hit.verified_by, hit.paid_by) == (Hit.State.PAID, manager, manager)


@pytest.mark.django_db(transaction=True)
def test_report_page_shows_the_expected_totals(live_server):
    manager = floor_manager()
    machine = SlotMachineFactory(asset_number="NOG-0101")
    evening = datetime(2026, 11, 20, 21, 0, tzinfo=ZoneInfo("Europe/Rome"))
    MachineEvent.objects.bulk_create(
        [
            game_event(machine, 1, evening, 12_345, 0),
            game_event(machine, 2, evening, 450, 10_000),
            # After midnight, before 06:00: still the business day of the 20th.
            game_event(machine, 3, evening.replace(day=21, hour=5, minute=59), 205, 0),
            # The next business day: not in the report.
            game_event(machine, 4, evening.replace(day=21, hour=6, minute=0), 99_999, 0),
        ]
    )
    with browser_page() as page:
        log_in(page, live_server.url, manager.username)
        page.goto(
            f"{live_server.url}/floor/reports/games/?venue=NOG&first=2026-11-20&last=2026-11-20&group_by=machine"
        )
        total = page.locator("#report-total")
        expect(total).to_contain_text("130.00")  # coin in 123.45 + 4.50 + 2.05
        expect(total).to_contain_text("100.00")  # coin out
        expect(total).to_contain_text("30.00")  # hold
        expect(total).to_contain_text("23.08")  # hold %
        expect(total.locator("td").first).to_have_text("3")
        page.screenshot(path=str(ARTIFACTS / "report-games.png"), full_page=True)


@contextmanager
def asgi_server(**env_changes: str | None) -> Iterator[str]:
    """uvicorn serving the project against the test database (committed data only); ``env_changes`` set
    variables of its environment, None removes one (``REDIS_URL=None``: the embedded default)."""
    db = connection.settings_dict
    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.test_settings",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "PYTHONUNBUFFERED": "1",
    }
    for name, value in env_changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    ARTIFACTS.mkdir(exist_ok=True)
    log = open(ARTIFACTS / f"uvicorn-floor-{port}.log", "wb")  # noqa: SIM115 - closed below
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "uvicorn"), "config.asgi:application", "--host", "127.0.0.1",
         "--port", str(port), "--log-level", "warning"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{url}/admin/login/", timeout=2).read()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"uvicorn did not start; see {log.name}") from None
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)
        log.close()


def post_event(url: str, key: str, event: dict) -> dict:
    request = urllib.request.Request(
        f"{url}/api/v1/events",
        data=json.dumps({"events": [event]}).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_floor_map_turns_a_machine_red_when_its_door_opens():
    manager = floor_manager()
    room = RoomFactory(number=1, name="Sala Uno")
    machine = SlotMachineFactory(
        asset_number="NOG-0101", room=room, pos_x=2, pos_y=1, last_seen=timezone.now(), last_game_at=None
    )
    SlotMachineFactory(asset_number="NOG-0102", room=room, pos_x=3, pos_y=1, last_seen=timezone.now())
    key = credential_issue(MachineKey, kind="mach", machine=machine)[1]

    with asgi_server() as url, browser_page() as page:
        log_in(page, url, manager.username)
        page.goto(f"{url}/floor/NOG/1/")
        expect(page.locator("#live-status")).to_have_attribute("data-state", "live")
        tile = page.locator(f"#machine-{machine.pk}")
        expect(tile).to_have_attribute("data-state", "idle")
        page.screenshot(path=str(ARTIFACTS / "floor-map-before.png"), full_page=True)

        at = timezone.now().isoformat().replace("+00:00", "Z")
        event = {"machine": "NOG-0101", "seq": 1, "at": at, "type": "status", "status": "door_open"}
        assert post_event(url, key, event)["accepted"] == 1

        expect(tile).to_have_attribute("data-state", "door_open", timeout=5_000)
        expect(tile).to_have_css("background-color", "rgb(229, 57, 53)")
        expect(page.locator(f"#machine-{machine.pk + 1}")).to_have_attribute("data-state", "idle")
        tile.click()
        expect(page.locator("#panel-asset")).to_contain_text("NOG-0101")
        expect(page.locator("#machine-detail .events")).to_contain_text("door opened")
        page.screenshot(path=str(ARTIFACTS / "floor-map-door-open.png"), full_page=True)
