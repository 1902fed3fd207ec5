"""The audit reads one snapshot (issue: it cried wolf on a live floor).

On the real PostgreSQL, with batches committed by other connections while the audit reads: a batch that
lands between the audit's reading of the levels and of their ledger is not a discrepancy, and one that
really is (a planted change to a raw event) is still found while the floor plays."""

from __future__ import annotations

import threading
import time

import pytest
from django.db.models import F

from jackpots import audit
from jackpots.audit import jackpots_audit
from jackpots.models import LedgerEntry
from jackpots.services import contributions_apply
from jackpots.services.levels import level_create
from slots.models import MachineEvent
from tests.jackpots.helpers import GRAND, pending_games, progressive_with_machines
from tests.threads import thread_with_own_connection

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _games(machines, first_seq: int, count: int) -> list[MachineEvent]:
    return pending_games(machines, first_seq, count, lambda i: 100 + i)


def _in_another_connection(work) -> None:
    thread_with_own_connection(work).join()


@pytest.fixture
def floor(settings):
    settings.ENGINE_SETTLE_MILLISECONDS = 0
    progressive, machines = progressive_with_machines(4)
    level = level_create(progressive, name="Grand", position=1, params=GRAND)
    MachineEvent.objects.bulk_create(_games(machines, 1, 40))
    contributions_apply()
    return machines, level


def test_a_batch_committed_while_the_audit_reads_is_not_a_discrepancy(floor, monkeypatch):
    machines, _ = floor
    MachineEvent.objects.bulk_create(_games(machines, 1000, 40))
    rows_before = LedgerEntry.objects.count()
    level_audit = audit.level_audit
    committed: list[int] = []

    def a_batch_lands_first(level):
        # After the audit has read the levels, before it reads their ledger: another connection commits.
        if not committed:
            _in_another_connection(lambda: committed.append(contributions_apply()))
        return level_audit(level)

    monkeypatch.setattr(audit, "level_audit", a_batch_lands_first)
    assert jackpots_audit() == (1, [])
    assert committed == [40]
    assert LedgerEntry.objects.count() == rows_before + 1
    monkeypatch.setattr(audit, "level_audit", level_audit)
    assert jackpots_audit() == (1, [])


def _play(machines, stop: threading.Event, applied: list[int]) -> None:
    seq = 10_000
    while not stop.is_set():
        MachineEvent.objects.bulk_create(_games(machines, seq, 50))
        seq += 50
        applied.append(contributions_apply())


def test_the_audit_is_clean_ten_times_while_the_floor_plays_and_finds_a_planted_change(floor):
    machines, level = floor
    stop, applied = threading.Event(), []
    player = thread_with_own_connection(lambda: _play(machines, stop, applied))
    try:
        results = [jackpots_audit() for _ in range(10)]
        played_during = sum(applied)
        first = MachineEvent.objects.filter(seq=1).get(machine=machines[0])
        MachineEvent.objects.filter(pk=first.pk).update(wager_cents=F("wager_cents") + 100)
        time.sleep(0.05)
        planted = jackpots_audit()
    finally:
        stop.set()
        player.join()
    assert results == [(1, [])] * 10
    assert played_during > 0
    # The changed wager breaks its row's recount and the row's split over the machines; nothing else.
    assert [d.level_id for d in planted[1]] == [level.id, level.id]
    assert planted[1][0].what.endswith("sums 40 events / 4780 cents, the raw events give 40 / 4880")
    assert "are not the allocation of the row over 4 machines" in planted[1][1].what
