"""Issue 24's page faults, read from the server's HTML: the venue switcher on the progressives page and the
liability report, the floor map's alerts collapsed, the progressives page's numbers in Italian."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone, translation

from jackpots.models import Hit
from tests.factories import (
    LevelFactory,
    ProgressiveFactory,
    ProgressiveMachineFactory,
    RoomFactory,
    SlotMachineFactory,
    VenueFactory,
)
from workspace.live.floor import FloorAlert, alert_lines

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_venues(db):
    """Diamond Vault at Ca' Noghera, Ainsworth at Ca' Vendramin, and Super Spin wide-area at both."""
    noghera = RoomFactory(number=1, venue=VenueFactory(code="NOG", name="Ca' Noghera"))
    vendramin = RoomFactory(number=1, venue=VenueFactory(code="VEN", name="Ca' Vendramin"))
    made = {}
    for name, rooms in (
        ("Diamond Vault", [noghera]),
        ("Ainsworth", [vendramin]),
        ("Super Spin", [noghera, vendramin]),
    ):
        progressive = ProgressiveFactory(name=name)
        LevelFactory(progressive=progressive, name="Grand", position=1)
        for room in rooms:
            ProgressiveMachineFactory(progressive=progressive, machine=SlotMachineFactory(room=room))
        made[name] = progressive
    # A hit at Ca' Noghera: a page about Ca' Vendramin must leave it out, not fail on it.
    level = made["Diamond Vault"].levels.get()
    Hit.objects.create(level=level, at=timezone.now(), amount_cents=50_000, level_seq=1, cycle=1)
    return made


def _rules_cell(page: str, name: str) -> bool:
    return 'class="rules-link"' in page and f">{name}</a></td>" in page


@pytest.mark.parametrize("path", ["/progressives/", "/floor/reports/liability/"])
def test_the_venue_switcher_chooses_the_progressives_listed(client, manager, two_venues, path):
    client.force_login(manager)
    listed = {}
    for venue in ("NOG", "VEN"):
        client.get(f"/venue/?venue={venue}&next={path}")
        page = client.get(path).content.decode()
        # A cell with the name, or (the progressives' list) with the name linking to its public rules page.
        listed[venue] = sorted(
            name
            for name in two_venues
            if f"<td>{name}</td>" in page or ('class="rules-link"' in page and f">{name}</a></td>" in page)
        )
    assert listed == {"NOG": ["Diamond Vault", "Super Spin"], "VEN": ["Ainsworth", "Super Spin"]}


def test_the_progressives_page_writes_hits_a_day_in_italian(client, manager, two_venues):
    client.force_login(manager)
    client.cookies["django_language"] = "it"
    page = client.get("/progressives/?days=7").content.decode()
    assert '<td class="num">0,00</td>' in page
    assert '<td class="num">0.00</td>' not in page


def test_sixty_offline_machines_are_one_alert_line():
    now = timezone.now()
    alerts = [FloorAlert("NOG-0001", "door open", now, timedelta(minutes=9))]
    alerts += [
        FloorAlert(f"NOG-{n:04d}", "offline", now, timedelta(minutes=8 - n / 100)) for n in range(2, 62)
    ]
    alerts += [FloorAlert("NOG-0070", "Memory reset", now, timedelta(minutes=1))]
    lines = [(line.label, line.count, line.assets[:2], line.age) for line in alert_lines(alerts)]
    assert lines == [
        ("door open", 1, ["NOG-0001"], timedelta(minutes=9)),
        ("offline", 60, ["NOG-0002", "NOG-0003"], timedelta(minutes=8 - 2 / 100)),
        ("Memory reset", 1, ["NOG-0070"], timedelta(minutes=1)),
    ]


def test_coin_in_by_hour_stops_at_the_current_hour_and_has_a_money_axis(client, manager):
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from workspace.reports.charts import Bar, bar_chart
    from workspace.reports.selectors import room_coin_in_by_hour

    room = RoomFactory(number=1)
    now = datetime(2026, 11, 26, 9, 30, tzinfo=ZoneInfo("Europe/Rome"))
    bars = room_coin_in_by_hour(room, now.date(), now)
    assert [bar.hour.astimezone(ZoneInfo("Europe/Rome")).hour for bar in bars] == [6, 7, 8, 9]
    with translation.override("en"):
        svg = bar_chart([Bar(label="06", value=150_000), Bar(label="07", value=0)], caption="Coin in by hour")
    assert [
        label in svg for label in (">€\xa00.00</text>", ">€\xa0750.00</text>", ">€\xa01,500.00</text>")
    ] == [
        True,
        True,
        True,
    ]


def test_the_level_chart_starts_with_the_level_and_ends_now(two_venues):
    from jackpots.models import LedgerEntry, Level
    from workspace.progressives.selectors import level_chart_span

    level = Level.objects.get(progressive=two_venues["Diamond Vault"])
    now = timezone.now()
    first = LedgerEntry.objects.filter(level=level).order_by("at").values_list("at", flat=True).first()
    start, end = level_chart_span(level, now - timedelta(days=3), now + timedelta(hours=5), now)
    assert end == now
    assert start == (first if first and first > now - timedelta(days=3) else now - timedelta(days=3))


def test_the_inventory_lists_the_venues_machines_filtered_and_sorted(client, manager):
    import re

    from tests.factories import BankFactory

    one = RoomFactory(number=1, name="Sala Uno", venue=VenueFactory(code="NOG"))
    two = RoomFactory(number=2, name="Sala Due", venue=one.venue)
    elsewhere = RoomFactory(number=1, venue=VenueFactory(code="VEN"))
    vault = BankFactory(room=one, code="B1", name="Diamond Vault")
    SlotMachineFactory(asset_number="NOG-0003", room=one, bank=vault, game_title="Grease")
    SlotMachineFactory(asset_number="NOG-0001", room=one, game_title="Wolf Run", status="out_of_service")
    SlotMachineFactory(asset_number="NOG-0002", room=two, game_title="Aladdin")
    SlotMachineFactory(asset_number="VEN-0001", room=elsewhere)
    client.force_login(manager)
    client.get("/venue/?venue=NOG&next=/floor/inventory/")

    def listed(query: str) -> list[str]:
        page = client.get(f"/floor/inventory/{query}").content.decode()
        return re.findall(r'<tr><td><a href="[^"]+">([A-Z]+-\d+)</a>', page)

    assert listed("") == ["NOG-0001", "NOG-0002", "NOG-0003"]
    assert listed("?sort=-asset") == ["NOG-0003", "NOG-0002", "NOG-0001"]
    assert listed("?sort=game") == ["NOG-0002", "NOG-0003", "NOG-0001"]
    assert listed("?room=1") == ["NOG-0001", "NOG-0003"]
    assert listed(f"?bank={vault.pk}") == ["NOG-0003"]
    assert listed("?status=out_of_service") == ["NOG-0001"]
    assert listed("?room=nine&sort=nonsense") == ["NOG-0001", "NOG-0002", "NOG-0003"]
