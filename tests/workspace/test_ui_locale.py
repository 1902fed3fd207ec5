"""The workspace in Italian: dates, months and amounts through Django's formats (issue 24)."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest
from django.utils import formats, translation

from slots.models import MachineEvent
from tests.factories import RoomFactory, SlotMachineFactory
from tests.staff_fixtures import game_event
from workspace.dayclose.selectors import dayclose_day_default

pytestmark = pytest.mark.django_db
ROME = ZoneInfo("Europe/Rome")


def test_italian_months_are_lower_case():
    with translation.override("it"):
        assert formats.date_format(date(2026, 11, 26)) == "26 novembre 2026"
        assert formats.date_format(date(2026, 5, 1), "j E") == "1 maggio"


def test_the_day_close_date_field_carries_an_iso_value_in_italian(client, manager):
    RoomFactory()
    client.force_login(manager)
    page = client.get("/dayclose/?venue=NOG&day=2026-11-25", HTTP_ACCEPT_LANGUAGE="it").content.decode()
    assert 'type="date" name="day" value="2026-11-25"' in page


def test_report_csv_amounts_are_ungrouped_in_the_readers_language(client, manager):
    machine = SlotMachineFactory(asset_number="NOG-0101")
    evening = datetime(2026, 11, 20, 21, 0, tzinfo=ROME)
    MachineEvent.objects.bulk_create([game_event(machine, 1, evening, 152_341, 0)])
    client.force_login(manager)
    url = "/floor/reports/games/?venue=NOG&first=2026-11-20&last=2026-11-20&group_by=machine&format=csv"
    client.cookies["django_language"] = "it"
    rows = client.get(url).content.decode().splitlines()
    assert '"1523,41"' in rows[1]
    assert '"100,00"' in rows[1]  # hold %: nothing won
    client.cookies["django_language"] = "en"
    rows = client.get(url).content.decode().splitlines()
    assert ",1523.41," in rows[1]


def test_the_day_close_opens_on_the_last_business_day_with_activity():
    room = RoomFactory()
    machine = SlotMachineFactory(asset_number="NOG-0001", room=room)
    venue = room.venue
    assert dayclose_day_default(venue, date(2026, 11, 26)) == date(2026, 11, 25)
    # Played on the 20th (a game at 05:59 on the 21st still belongs to the 20th), nothing since.
    MachineEvent.objects.bulk_create(
        [
            game_event(machine, 1, datetime(2026, 11, 20, 21, 0, tzinfo=ROME), 100, 0),
            game_event(machine, 2, datetime(2026, 11, 21, 5, 59, tzinfo=ROME), 100, 0),
        ]
    )
    assert dayclose_day_default(venue, date(2026, 11, 26)) == date(2026, 11, 20)
    # Today's games do not count: today has not closed.
    MachineEvent.objects.bulk_create(
        [game_event(machine, 3, datetime(2026, 11, 26, 7, 0, tzinfo=ROME), 1, 0)]
    )
    assert dayclose_day_default(venue, date(2026, 11, 26)) == date(2026, 11, 20)
