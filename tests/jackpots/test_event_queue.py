"""On PostgreSQL the engine claims through the queue of pending ids, and marks events in place (HOT)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from jackpots.services import contributions_apply
from slots.models import MachineEvent, PendingEvent
from tests.jackpots.factories import GameEventFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def _table_stat(column: str) -> int:
    # This transaction's own counters: exact, not the collector's delayed totals.
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {column} FROM pg_stat_xact_user_tables WHERE relname = 'slots_machineevent'")
        return cursor.fetchone()[0]


def test_events_stored_pending_are_queued_in_the_same_statement(linked) -> None:
    _, machines, _ = linked
    games = [GameEventFactory.build(machine=machines[i % 4], seq=i + 1) for i in range(30)]
    status = GameEventFactory.build(machine=machines[0], seq=31, type=MachineEvent.Type.STATUS, pending=False)
    stored = MachineEvent.objects.bulk_create([*games, status])

    queued = sorted(PendingEvent.objects.values_list("event_id", flat=True))
    assert queued == sorted(event.pk for event in stored[:30])


def test_a_statement_queues_its_events_in_the_order_of_play(linked) -> None:
    # Four machines' games played at the same instant and stored round-robin: the order of play takes them
    # machine by machine, and the queue's rows lie in that order, so a pick walks its pages in sequence.
    _, machines, _ = linked
    at = timezone.now() - timedelta(seconds=1)
    games = [GameEventFactory.build(machine=machines[i % 4], seq=i + 1, at=at) for i in range(40)]
    stored = MachineEvent.objects.bulk_create(games)

    with connection.cursor() as cursor:
        cursor.execute("SELECT event_id FROM slots_pendingevent ORDER BY ctid")
        laid_out = [row[0] for row in cursor.fetchall()]
    in_play = sorted(stored, key=lambda event: (event.at, event.machine_id, event.seq))
    assert laid_out == [event.pk for event in in_play]
    assert laid_out != [event.pk for event in stored]


def test_applying_empties_the_queue_and_marks_every_event_in_place(linked) -> None:
    _, machines, level = linked
    MachineEvent.objects.bulk_create(
        GameEventFactory.build(machine=machines[i % 4], seq=i + 1, wager_cents=200) for i in range(400)
    )
    hot_before, updated_before = _table_stat("n_tup_hot_upd"), _table_stat("n_tup_upd")

    assert contributions_apply() == 400

    assert PendingEvent.objects.count() == 0
    assert MachineEvent.objects.filter(pending=True).count() == 0
    assert _table_stat("n_tup_upd") - updated_before == 400
    assert _table_stat("n_tup_hot_upd") - hot_before == 400
    level.refresh_from_db()
    assert level.wagered_cents == 400 * 200


def test_a_queued_id_whose_event_is_no_longer_pending_is_dropped_unapplied(linked) -> None:
    _, machines, level = linked
    kept, cleared = (GameEventFactory(machine=machines[0], seq=seq, wager_cents=500) for seq in (1, 2))
    MachineEvent.objects.filter(pk=cleared.pk).update(pending=False, applied_at=timezone.now())

    assert contributions_apply() == 1

    assert PendingEvent.objects.count() == 0
    level.refresh_from_db()
    assert level.wagered_cents == 500
    kept.refresh_from_db()
    assert kept.pending is False
