"""On the real PostgreSQL: concurrent worker processes, a worker killed mid-batch, simultaneous hits."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection, connections

from jackpots.audit import jackpots_audit
from jackpots.models import ContributionBatch, Hit, LedgerEntry
from jackpots.services import contributions_apply, core, level_hit
from jackpots.services.levels import level_create
from slots.models import MachineEvent
from tests.jackpots.helpers import pending_games, progressive_with_machines

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PARAMS = core.Params(100_000_000, Decimal("0.00731234"), Decimal("0.00123457"))


def _events(machines, start_seq: int, count: int) -> list[MachineEvent]:
    return pending_games(machines, start_seq, count, lambda i: 1 + (start_seq + i) * 7 % 997)


def _worker(tmp_path: Path, stop: Path, marker: Path | None = None) -> subprocess.Popen:
    args = [sys.executable, "-m", "tests.jackpots.worker", connection.settings_dict["NAME"], str(stop)]
    if marker is not None:
        args.append(str(marker))
    env = {**os.environ, "PYTHONPATH": str(settings.BASE_DIR)}
    return subprocess.Popen(args, cwd=settings.BASE_DIR, env=env)


def _expect_exact(level, events: list[MachineEvent]) -> None:
    level.refresh_from_db()
    wagered = sum(e.wager_cents for e in events)
    assert level.wagered_cents == wagered
    assert level.current_mc == PARAMS.reset_mc + core.share_mc(wagered, PARAMS.rate)
    assert level.reserve_mc == core.share_mc(wagered, PARAMS.reserve_rate)
    assert MachineEvent.objects.filter(pending=True).count() == 0
    ledger = LedgerEntry.objects.filter(level=level, kind=LedgerEntry.Kind.CONTRIBUTION)
    assert sum(row.event_count for row in ledger) == len(events)
    assert jackpots_audit()[1] == []


def test_four_worker_processes_while_events_keep_arriving(tmp_path):
    progressive, machines = progressive_with_machines(20)
    level = level_create(progressive, name="Grand", position=1, params=PARAMS)
    stop = tmp_path / "stop"
    workers = [_worker(tmp_path, stop) for _ in range(4)]
    events = []
    try:
        for chunk in range(30):
            events += MachineEvent.objects.bulk_create(_events(machines, chunk * 400 + 1, 400))
            time.sleep(0.02)
        stop.touch()
        for worker in workers:
            assert worker.wait(timeout=120) == 0
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
    assert len(events) == 12_000
    batches = ContributionBatch.objects.count()
    assert batches >= 24  # 500 a batch at most
    _expect_exact(level, events)


def test_a_worker_killed_mid_batch_loses_nothing_and_counts_nothing_twice(tmp_path):
    progressive, machines = progressive_with_machines(5)
    level = level_create(progressive, name="Grand", position=1, params=PARAMS)
    events = MachineEvent.objects.bulk_create(_events(machines, 1, 1_200))
    marker = tmp_path / "in-batch"
    worker = _worker(tmp_path, tmp_path / "stop", marker)
    try:
        for _ in range(600):
            if marker.exists():
                break
            time.sleep(0.05)
        assert marker.exists()
        os.kill(worker.pid, signal.SIGKILL)
        assert worker.wait(timeout=10) == -signal.SIGKILL
    finally:
        if worker.poll() is None:
            worker.kill()
    # The killed batch rolled back whole (the server drops the dead session's transaction).
    for _ in range(100):
        if MachineEvent.objects.filter(pending=True).count() == 1_200:
            break
        time.sleep(0.05)
    assert MachineEvent.objects.filter(pending=True).count() == 1_200
    assert ContributionBatch.objects.count() == 0
    assert jackpots_audit()[1] == []
    assert contributions_apply(batch_size=500) == 1_200  # the restarted worker
    _expect_exact(level, events)


def test_two_hits_on_one_level_at_the_same_moment_are_ordered_and_both_correct():
    progressive, machines = progressive_with_machines(2)
    level = level_create(progressive, name="Grand", position=1, params=PARAMS)
    MachineEvent.objects.bulk_create(_events(machines, 1, 100))
    contributions_apply()
    level.refresh_from_db()
    standing = level.current_mc
    reserve = level.reserve_mc
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def hit(machine) -> None:
        try:
            barrier.wait()
            level_hit(level.id, machine_id=machine.id)
        except BaseException as error:  # reported below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=hit, args=(machine,)) for machine in machines]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    first, second = Hit.objects.filter(level=level).order_by("number")
    assert (first.number, second.number) == (1, 2)
    assert (first.amount_mc, first.amount_cents, first.cycle) == (standing, standing // 1000, 1)
    second_start = PARAMS.reset_mc + standing % 1000 + reserve
    assert (second.amount_mc, second.amount_cents, second.cycle) == (second_start, second_start // 1000, 2)
    assert second.level_seq > first.level_seq
    level.refresh_from_db()
    assert (level.cycle, level.hits, level.current_mc) == (3, 2, PARAMS.reset_mc + second_start % 1000)
    assert level.total_won_cents == first.amount_cents + second.amount_cents
    assert jackpots_audit()[1] == []
