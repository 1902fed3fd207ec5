"""The machines' side of the significant-events register: door, power, tilt and handpay from the events
API (one row each, in the batch's one INSERT, none for games or a retry), and offline / back online from
the beat and the next event (the ORM path and the single-statement path alike)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from floor.models import SignificantEvent
from slots.models import OfflinePeriod, SlotMachine
from slots.services.machines import machines_mark_offline
from tests.slots.helpers import BASE_AT, at, game

pytestmark = pytest.mark.django_db

FIELDS = ("kind", "venue_id", "at", "subject", "machine_id", "level_id", "user_id", "detail", "reference")


def register(*, exclude_keys: bool = True) -> list[tuple]:
    rows = SignificantEvent.objects.order_by("at", "id")
    if exclude_keys:  # the fixtures' machine and gateway keys are in the register too
        rows = rows.exclude(kind__in=["key_issued", "key_revoked"])
    return list(rows.values_list(*FIELDS))


def status(machine: SlotMachine, seq: int, name: str) -> dict:
    return {"machine": machine.asset_number, "seq": seq, "at": at(seq), "type": "status", "status": name}


def test_each_exception_writes_one_row_and_games_none(machine, machine_key, post_events):
    venue = machine.room.venue_id
    events = [
        game(machine, 1),
        status(machine, 2, "door_open"),
        status(machine, 3, "door_closed"),
        status(machine, 4, "power_off"),
        status(machine, 5, "power_on"),
        status(machine, 6, "tilt"),
        status(machine, 7, "handpay_lockup"),
        status(machine, 8, "handpay_reset"),
        game(machine, 9),
    ]
    assert post_events(events, key=machine_key)[1]["accepted"] == 9

    def row(kind, seq, detail):
        return (
            kind,
            venue,
            BASE_AT + timedelta(seconds=seq),
            "NOG-0101",
            machine.pk,
            None,
            None,
            detail,
            f"seq {seq}",
        )

    assert register() == [
        row("door_open", 2, "Slot door was opened (SAS exception 11)"),
        row("door_closed", 3, "Slot door was closed (SAS exception 12)"),
        row("power_off", 4, "AC power was lost from the gaming machine (SAS exception 18)"),
        row("power_on", 5, "AC power was applied to the gaming machine (SAS exception 17)"),
        row("tilt", 6, "Machine tilt (SAS exceptions 20 to 2A)"),
        row("handpay", 7, "Handpay is pending: the machine is locked up (SAS exception 51)"),
        row("handpay", 8, "Handpay was reset: the lockup is cleared (SAS exception 52)"),
    ]
    # A retry of the same batch is all duplicates: nothing more in the register.
    assert post_events(events, key=machine_key)[1]["duplicates"] == 9
    assert len(register()) == 7


def test_a_batch_of_exceptions_is_one_insert_into_the_register(machine, machine_key, post_events):
    events = [status(machine, seq, "door_open" if seq % 2 else "door_closed") for seq in range(1, 101)]
    with CaptureQueriesContext(connection) as queries:
        assert post_events(events, key=machine_key)[1]["accepted"] == 100
    inserts = [
        q["sql"] for q in queries.captured_queries if 'INSERT INTO "floor_significantevent"' in q["sql"]
    ]
    assert len(inserts) == 1
    assert SignificantEvent.objects.filter(kind__in=["door_open", "door_closed"]).count() == 100


def test_a_game_batch_touches_no_register_table(machine, machine_key, post_events):
    with CaptureQueriesContext(connection) as queries:
        post_events([game(machine, seq) for seq in range(1, 51)], key=machine_key)
    assert [q for q in queries.captured_queries if "floor_significantevent" in q["sql"]] == []
    assert register() == []


def test_offline_then_back_writes_one_row_each(machine, machine_key, post_events, settings):
    settings.MACHINE_OFFLINE_AFTER_SECONDS = 30
    heard = datetime(2026, 11, 20, 9, 0, 0, tzinfo=UTC)
    SlotMachine.objects.filter(pk=machine.pk).update(last_seen=heard)
    marked_at = timezone.now()
    assert machines_mark_offline(now=marked_at) == 1
    assert machines_mark_offline(now=marked_at + timedelta(minutes=1)) == 0  # already offline: no row
    venue = machine.room.venue_id
    offline = (
        "offline",
        venue,
        marked_at,
        "NOG-0101",
        machine.pk,
        None,
        None,
        "Silent past the offline limit (last heard 2026-11-20 09:00:00 UTC): out of play until heard again.",
        "",
    )
    assert register() == [offline]
    # The ORM path (a status event: not the single-statement insert).
    assert post_events([status(machine, 5, "door_open")], key=machine_key)[1]["accepted"] == 1
    period = OfflinePeriod.objects.get()
    since = marked_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
    online = (
        "online",
        venue,
        period.ended_at,
        "NOG-0101",
        machine.pk,
        None,
        None,
        f"Heard again (seq 5); offline since {since} UTC.",
        "seq 5",
    )
    assert [row for row in register() if row[0] in ("offline", "online")] == [offline, online]


def test_never_heard_says_so(machine, settings):
    SlotMachine.objects.filter(pk=machine.pk).update(last_seen=None)
    machines_mark_offline()
    assert SignificantEvent.objects.get(kind="offline").detail == (
        "Silent past the offline limit (last heard never): out of play until heard again."
    )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_back_online_on_the_single_statement_path_writes_the_same_row(machine, machine_key, post_events):
    if connection.vendor != "postgresql":
        pytest.skip("the single-statement insert is PostgreSQL's")
    SlotMachine.objects.filter(pk=machine.pk).update(last_seen=timezone.now() - timedelta(minutes=5))
    marked_at = timezone.now()
    machines_mark_offline(now=marked_at)
    assert post_events([game(machine, 1), game(machine, 2)], key=machine_key)[1]["accepted"] == 2
    period = OfflinePeriod.objects.get()
    assert period.ended_seq == 1
    since = marked_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
    assert [row for row in register() if row[0] == "online"] == [
        (
            "online",
            machine.room.venue_id,
            period.ended_at,
            "NOG-0101",
            machine.pk,
            None,
            None,
            f"Heard again (seq 1); offline since {since} UTC.",
            "seq 1",
        )
    ]
    # Back in play: the next games end nothing and write nothing.
    post_events([game(machine, 3)], key=machine_key)
    assert SignificantEvent.objects.filter(kind="online").count() == 1
