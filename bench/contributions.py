"""Contributions benchmark: game events applied per second through the real task code.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/<any> .venv/bin/python bench/contributions.py [--events N]

Creates its own database (dropped at the end) on the server of DATABASE_URL and prints:
- events/s applied to ONE linked level fed by 500 machines (``contributions_apply_task``);
- events/s applied to the 5 Grease levels at once (500 machines, every event eligible for 4 or 5 levels);
- the rate of one committed UPDATE per event on one row (what a per-event design is bounded by);
- level-row commits per second during the runs (one UPDATE of each touched level per batch);
- the machine's load average next to the figures (the machine is shared).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.stack import url_with_database  # noqa: E402


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


def _admin_url() -> str:
    url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    if not url.startswith("postgres"):
        sys.exit("DATABASE_URL must point at PostgreSQL")
    return url


def _setup(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.test_settings")
    os.environ.pop("REDIS_URL", None)  # eager, in-process: the task's own code, no broker in the timing
    os.environ.setdefault("ENGINE_SETTLE_MILLISECONDS", "250")  # production's window (the tests' is 0)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _floor(machines: int):
    from floor.models import Bank, Room, Venue
    from slots.models import SlotMachine

    venue = Venue.objects.create(code="NOG", name="Ca' Noghera")
    room = Room.objects.create(venue=venue, number=1, name="Sala Uno")
    bank = Bank.objects.create(room=room, code="B1")
    return SlotMachine.objects.bulk_create(
        SlotMachine(
            asset_number=f"NOG-{i:04d}",
            manufacturer="IGT",
            game_title="Bench",
            denomination_cents=1,
            min_bet_cents=1,
            max_bet_cents=300,
            room=room,
            bank=bank,
        )
        for i in range(1, machines + 1)
    )


def _progressive(name: str, machines, levels: list[tuple[str, object]]):
    from jackpots.models import Progressive, ProgressiveMachine
    from jackpots.services.levels import level_create

    progressive = Progressive.objects.create(name=name, kind=Progressive.Kind.LINKED)
    ProgressiveMachine.objects.bulk_create(
        ProgressiveMachine(progressive=progressive, machine=m) for m in machines
    )
    return [level_create(progressive, name=n, position=i, params=p) for i, (n, p) in enumerate(levels, 1)]


def _events(machines, count: int, seq_base: int, *, in_turn: bool = False) -> None:
    """Pending game events, written with COPY (the ingest is not what is measured here), played a second
    ago or earlier: past the settle window, so the engine claims them in the order of play at once.

    ``in_turn``: each event is played a microsecond after the one written before it, as on a floor, where
    events reach the server about in the order they were played. Otherwise all are played at the same
    instant, so the order of play goes machine by machine and each batch's events lie all over the table
    (the worst case for the claim)."""
    from django.db import connection

    now = datetime.now(UTC) - timedelta(seconds=1)
    start = now - timedelta(microseconds=count)
    with connection.cursor() as cursor:
        copy_sql = (
            "COPY slots_machineevent (machine_id, seq, type, at, received_at, digest, payload, wager_cents, "
            "win_cents, is_max_bet, pending) FROM STDIN"
        )
        with cursor.copy(copy_sql) as copy:
            for i in range(count):
                machine = machines[i % len(machines)]
                wager = 60 + (i * 37) % 241
                at = start + timedelta(microseconds=i) if in_turn else now
                copy.write_row(
                    (machine.id, seq_base + i, 1, at, now, "0" * 40, "{}", wager, 0, wager == 300, True)
                )


def _drain(results=None) -> int:
    """One worker: runs the task until nothing is pending (as beat and the ingest would keep calling it)."""
    from django.db import connections

    from jackpots.tasks import contributions_apply_task

    applied = 0
    while True:
        done = contributions_apply_task()
        applied += done
        if done == 0:
            break
    connections.close_all()
    if results is not None:
        results.put(applied)
    return applied


def _apply_all(workers: int) -> tuple[int, float, int]:
    """Drains the pending events with ``workers`` processes at once (a Celery pool of that size)."""
    from django.db import connections

    from jackpots.models import ContributionBatch

    batches_before = ContributionBatch.objects.count()
    connections.close_all()  # forked workers open their own connections
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    start = time.perf_counter()
    if workers == 1:
        applied = _drain()
    else:
        processes = [context.Process(target=_drain, args=(results,)) for _ in range(workers)]
        for process in processes:
            process.start()
        applied = sum(results.get() for _ in processes)
        for process in processes:
            process.join()
    elapsed = time.perf_counter() - start
    return applied, elapsed, ContributionBatch.objects.count() - batches_before


def _per_event_baseline(url: str, seconds: float = 3.0) -> float:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE bench_row (id int PRIMARY KEY, amount bigint NOT NULL)")
        conn.execute("INSERT INTO bench_row VALUES (1, 0)")
        count = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            conn.execute("UPDATE bench_row SET amount = amount + %s WHERE id = 1", (450,))
            count += 1
        return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200_000, help="game events per run")
    parser.add_argument("--repeat", type=int, default=3, help="runs per scenario (the machine is shared)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker processes per run")
    parser.add_argument(
        "--played-in-turn",
        action="store_true",
        help="each event played just after the one before it (default: all at the same instant)",
    )
    args = parser.parse_args()
    admin = _admin_url()
    name = f"bench_contributions_{os.getpid()}"
    with psycopg.connect(url_with_database(admin, "postgres"), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = url_with_database(admin, name)
    try:
        _setup(url)
        from django.conf import settings
        from django.db import connection

        from jackpots.services.core import Params

        floor = _floor(1000)
        linked_machines, grease_machines = floor[:500], floor[500:]
        eur = 100_000
        [one] = _progressive(
            "Linked", linked_machines, [("Grand", Params(1000 * eur, Decimal("0.005"), Decimal("0.001")))]
        )
        from demo.seed_progressives import GREASE

        grease = _progressive("Grease", grease_machines, GREASE)
        played = "each just after the one before" if args.played_in_turn else "all at the same instant"
        print(f"batch size {settings.CONTRIBUTIONS_BATCH_SIZE}; events played {played}; {_load()} before")
        seq = 1
        for workers in args.workers:
            for label, machines, levels in (
                ("one linked level, 500 machines", linked_machines, [one]),
                ("5 Grease levels at once, 500 machines", grease_machines, grease),
            ):
                rates = []
                for _ in range(args.repeat):
                    _events(machines, args.events, seq, in_turn=args.played_in_turn)
                    seq += args.events
                    applied, elapsed, batches = _apply_all(workers)
                    assert applied == args.events
                    rates.append(applied / elapsed)
                    print(
                        f"  {label}, {workers} worker(s): {applied} events in {elapsed:.2f} s ="
                        f" {applied / elapsed:,.0f} events/s; {batches} commits touching {len(levels)}"
                        f" level row(s) = {batches / elapsed:,.1f} level-row commits/s ({_load()})"
                    )
                print(
                    f"{label}, {workers} worker(s): median {statistics.median(rates):,.0f} events/s"
                    f" (best {max(rates):,.0f}) over {args.repeat} runs"
                )
        connection.close()
        rate = _per_event_baseline(url)
        print(f"one committed UPDATE per event on one row: {rate:,.0f} events/s ({_load()})")
    finally:
        from django.db import connections

        connections.close_all()
        with psycopg.connect(url_with_database(admin, "postgres"), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
