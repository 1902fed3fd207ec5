"""Every stored batch moves its machines' last seen and last game: a HOT update (PostgreSQL writes the row's
new version beside the old one and no entry in any of the table's indexes), since no index holds those
columns and the table leaves room on its pages (migration 0012). With (status, last_seen) indexed, every
touch wrote an entry in each of the table's six indexes."""

from __future__ import annotations

import pytest
from django.db import connection
from django.utils import timezone

from common.times import time_window
from slots.services.machine_map import machine_map_refresh
from slots.services.parsing import Principal, event_limits, event_parse
from slots.services.storage import events_store
from tests.factories import SlotMachineFactory
from tests.slots.helpers import game

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

# What this transaction updated of the machines' table: every row version, and those made HOT.
_UPDATES = (
    "SELECT pg_stat_get_xact_tuples_updated('slots_slotmachine'::regclass), "
    "pg_stat_get_xact_tuples_hot_updated('slots_slotmachine'::regclass)"
)
_TOUCHED_COLUMNS = ("last_seen", "last_game_at")


def _updates() -> tuple[int, int]:
    with connection.cursor() as cursor:
        cursor.execute(_UPDATES)
        return cursor.fetchone()


def test_a_batch_stored_in_a_transaction_touches_its_machines_hot(machine, gateway_key, post_events):
    others = SlotMachineFactory.create_batch(2, room=machine.room)
    updated, hot = _updates()
    events = [game(each, 1) for each in (machine, *others)]
    assert post_events(events, key=gateway_key)[1] == {"accepted": 3, "duplicates": 0, "rejected": []}
    assert _updates() == (updated + 3, hot + 3)


def test_the_single_statement_touches_its_machines_hot(machine):
    """The statement a gateway's batch takes outside a transaction (here inside the test's, which lets the
    counters be read): the same columns, moved in its own UPDATE."""
    others = SlotMachineFactory.create_batch(2, room=machine.room)
    machines = machine_map_refresh(each.asset_number for each in (machine, *others))
    now = timezone.now()
    parsed = [
        event_parse(
            index,
            game(each, 1),
            machines=machines,
            principal=Principal(venue_id=machine.room.venue_id),
            window=time_window(now),
            limits=event_limits(),
        )
        for index, each in enumerate((machine, *others))
    ]
    updated, hot = _updates()
    inserted, existing = events_store(
        parsed, received_at=now, touch=True, key=None, machines=list(machines.values())
    )
    assert (len(inserted), existing) == (3, {})
    assert _updates() == (updated + 3, hot + 3)


def test_no_index_of_the_machines_holds_a_column_every_batch_moves():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT i.indexrelid::regclass::text, a.attname FROM pg_index i "
            "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) "
            "WHERE i.indrelid = 'slots_slotmachine'::regclass AND a.attname = ANY(%s)",
            [list(_TOUCHED_COLUMNS)],
        )
        assert cursor.fetchall() == []
        cursor.execute("SELECT reloptions FROM pg_class WHERE oid = 'slots_slotmachine'::regclass")
        assert cursor.fetchone() == (["fillfactor=50"],)
