"""Report pages by role, their CSV and their errors."""

from __future__ import annotations

import csv
import io
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse

from slots.models import MachineEvent
from tests.factories import SlotMachineFactory, VenueFactory
from tests.staff_fixtures import game_event

PAGES = [
    "workspace:reports",
    "workspace:report-games",
    "workspace:report-room-hours",
    "workspace:report-liability",
    "workspace:report-level-history",
]


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize(
    ("who", "status"), [("manager", 200), ("auditor", 200), ("attendant", 403), ("plain_staff", 403)]
)
def test_report_pages_by_role(client, request, page, who, status):
    client.force_login(request.getfixturevalue(who))
    assert client.get(reverse(page)).status_code == status


@pytest.mark.parametrize("page", PAGES)
def test_anonymous_is_sent_to_login(client, db, page):
    response = client.get(reverse(page))
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


def test_game_report_page_and_csv(client, manager):
    venue = VenueFactory()
    machine = SlotMachineFactory(asset_number="NOG-0101", room__venue=venue)
    at = datetime(2026, 11, 20, 21, 0, tzinfo=ZoneInfo("Europe/Rome"))
    MachineEvent.objects.bulk_create(
        [game_event(machine, 1, at, 12_345, 0), game_event(machine, 2, at, 450, 10_000)]
    )
    client.force_login(manager)
    params = {"venue": "NOG", "first": "2026-11-20", "last": "2026-11-20", "group_by": "machine"}
    page = client.get(reverse("workspace:report-games"), params)
    assert page.status_code == 200
    body = page.content.decode()
    assert "NOG-0101" in body
    assert "127.95" in body  # coin in
    assert "21.84" in body  # hold % of 27.95 / 127.95

    export = client.get(reverse("workspace:report-games"), {**params, "format": "csv"})
    assert export["Content-Type"] == "text/csv; charset=utf-8"
    rows = list(csv.reader(io.StringIO(export.content.decode())))
    assert rows[1] == [
        "NOG-0101 Diamond Vault",
        "2",
        "127.95",
        "100.00",
        "27.95",
        "21.84",
        "0.00",
        "0.00",
        "0.00",
    ]
    assert rows[2][0] == "Total"


def test_bad_range_is_a_clear_400(client, manager):
    VenueFactory()
    client.force_login(manager)
    response = client.get(
        reverse("workspace:report-games"), {"venue": "NOG", "first": "2026-11-20", "last": "2026-11-01"}
    )
    assert response.status_code == 400
    assert "The last day comes before the first." in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("who", "links", "absent"),
    [
        ("manager", ["/floor/NOG/", "/floor/NOG/1/", "/floor/reports/", "/floor/inventory/"], []),
        ("attendant", ["/floor/NOG/", "/floor/NOG/1/"], ["/floor/reports/", "/floor/inventory/"]),
        ("auditor", ["/floor/NOG/", "/floor/reports/"], ["/floor/inventory/"]),
    ],
)
def test_admin_home_links_to_the_workspace(client, request, who, links, absent):
    from tests.factories import RoomFactory

    RoomFactory(venue=VenueFactory(), number=1)
    client.force_login(request.getfixturevalue(who))
    body = client.get("/admin/").content.decode()
    for link in links:
        assert f'href="{link}"' in body
    for link in absent:
        assert f'href="{link}"' not in body
