"""Game events stored before the events API bounded dates and wins (year 1, year 9999, a win of 2^63-1)
are left out of the hour summaries with a warning: the refresh and the floor pages keep working."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from slots.models import MachineEvent
from tests.factories import RoomFactory, SlotMachineFactory, VenueFactory
from tests.staff_fixtures import game_event
from workspace.models import MachineHourStat
from workspace.reports.services import machine_hour_stats_refresh

pytestmark = pytest.mark.django_db


@pytest.fixture
def machine(db):
    return SlotMachineFactory(room=RoomFactory(venue=VenueFactory(), number=1), asset_number="NOG-0101")


def _hour(instant: datetime) -> datetime:
    return instant.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


def _stats() -> list[tuple]:
    return list(MachineHourStat.objects.values_list("hour", "games", "coin_in_cents", "coin_out_cents"))


def _assert_overview_answers(client, manager) -> None:
    client.force_login(manager)
    assert client.get(reverse("workspace:venue", args=["NOG"])).status_code == 200


@pytest.mark.parametrize(
    "bad_at",
    [
        datetime(1, 1, 1, tzinfo=UTC),  # finding 1: the business day of this hour used to overflow
        datetime(1, 1, 1, 6, tzinfo=UTC),
        datetime(9999, 12, 31, 23, tzinfo=UTC),
    ],
)
def test_a_stored_event_dated_out_of_range_is_skipped_and_the_rest_counted(
    machine, client, manager, caplog, bad_at
):
    now = timezone.now()
    MachineEvent.objects.bulk_create(
        [game_event(machine, 1, now, 450, 100), game_event(machine, 2, bad_at, 450, 0)]
    )
    with caplog.at_level(logging.WARNING, logger="workspace.reports.services"):
        assert machine_hour_stats_refresh() == 1
    assert _stats() == [(_hour(now), 1, 450, 100)]
    assert [record.getMessage() for record in caplog.records] == [
        "Hour summaries: 1 stored game event(s) dated outside the reportable span or with a win above "
        "GAME_WIN_MAX_CENTS are left out."
    ]
    _assert_overview_answers(client, manager)
    # The next refresh (which rescans the last minutes' ids) neither fails nor counts it.
    assert machine_hour_stats_refresh(now=now + timedelta(minutes=1)) == 1
    assert _stats() == [(_hour(now), 1, 450, 100)]


def test_stored_wins_of_2_63_minus_1_are_skipped_and_the_hour_counted(machine, client, manager, caplog):
    """Finding 2: two such wins in an hour overflowed the summary's bigint."""
    now = timezone.now()
    MachineEvent.objects.bulk_create(
        [
            game_event(machine, 1, now, 450, 2**63 - 1),
            game_event(machine, 2, now, 450, 2**63 - 1),
            game_event(machine, 3, now, 300, 1_500),
        ]
    )
    with caplog.at_level(logging.WARNING, logger="workspace.reports.services"):
        assert machine_hour_stats_refresh() == 1
    assert _stats() == [(_hour(now), 1, 300, 1_500)]
    assert "2 stored game event(s)" in caplog.records[0].getMessage()
    _assert_overview_answers(client, manager)
