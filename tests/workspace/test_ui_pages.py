"""Issue 24's page faults, read from the server's HTML: the venue switcher on the progressives page and the
liability report, the floor map's alerts collapsed, the progressives page's numbers in Italian."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

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
    return made


@pytest.mark.parametrize("path", ["/progressives/", "/floor/reports/liability/"])
def test_the_venue_switcher_chooses_the_progressives_listed(client, manager, two_venues, path):
    client.force_login(manager)
    listed = {}
    for venue in ("NOG", "VEN"):
        client.get(f"/venue/?venue={venue}&next={path}")
        page = client.get(path).content.decode()
        listed[venue] = sorted(name for name in two_venues if f"<td>{name}</td>" in page)
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
