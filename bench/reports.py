"""Reports on a month of a 450-machine floor, on PostgreSQL, in a database of its own.

    .venv/bin/python bench/reports.py [--machines 450] [--days 30] [--games-per-day 400]
        [--contribution-minutes 1] [--levels 2] [--database prog_bench_reports] [--keep]

Fills the bench database (dropped first unless --keep finds it filled) with game events and machine
contribution rows (one per machine per level every --contribution-minutes, as the engine writes them, a
couple of seconds after the minute) generated in the database, builds the hourly summaries, then times: the
full summary build, an incremental refresh after a day of new events and contribution rows, the report pages
(per machine, per day, per room, coin in by hour, venue overview) through Django's test client, and the same
month summed straight from the raw events and contribution rows for comparison.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BENCH_DB = "prog_bench_reports"


def _setup(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.test_settings")
    import django

    django.setup()


def _create_database(server_url: str, name: str, keep: bool) -> bool:
    import psycopg

    with psycopg.connect(f"{server_url}/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if exists and keep:
            return True
        if exists:
            conn.execute(f"DROP DATABASE {name}")
        conn.execute(f"CREATE DATABASE {name}")
    return False


def _floor(machines: int) -> None:
    from floor.models import Bank, Room, Venue
    from slots.models import SlotMachine

    venue = Venue.objects.create(code="NOG", name="Ca' Noghera")
    rooms = [
        Room.objects.create(venue=venue, number=n, name=f"Sala {n}", grid_columns=30, grid_rows=20)
        for n in range(1, 6)
    ]
    objects = []
    for i in range(machines):
        room = rooms[i % len(rooms)]
        bank, _ = Bank.objects.get_or_create(room=room, code=f"B{i // 10:03d}")
        objects.append(
            SlotMachine(
                asset_number=f"NOG-{i + 1:04d}",
                manufacturer="IGT",
                game_title="Bench",
                denomination_cents=50,
                min_bet_cents=50,
                max_bet_cents=450,
                room=room,
                bank=bank,
                pos_x=(i // 5) % 30,
                pos_y=(i // 150) % 20,
            )
        )
    SlotMachine.objects.bulk_create(objects)


def _events(days: int, games_per_day: int, start_sql: str, seq_offset: int = 0) -> int:
    """Game events spread evenly over the period, wagers €0.50-€4.50, a win on about 30% of games."""
    from django.db import connection

    per_machine = days * games_per_day
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            INSERT INTO slots_machineevent (machine_id, seq, type, at, received_at, digest, payload,
                wager_cents, win_cents, bank_id, denomination_cents, is_max_bet, pending)
            SELECT m.id, {seq_offset} + g, 1, t, t, '0', '{{}}'::jsonb, w, CASE WHEN random() < 0.3
                THEN (random() * w * 3)::bigint ELSE 0 END, m.bank_id, 50, w = 450, false
            FROM slots_slotmachine m
            CROSS JOIN generate_series(1, %s) g
            CROSS JOIN LATERAL (SELECT ({start_sql}) + (g * interval '1 day' * %s / %s)
                + (m.id %% 97) * interval '1 second' AS t, (1 + (random() * 8)::int) * 50 AS w) x
            """,
            [per_machine, days, per_machine],
        )
        count = cursor.rowcount
        cursor.execute("ANALYZE slots_machineevent")
    return count


def _contributions(days: int, every_minutes: int, levels: int, start_sql: str, entry_offset: int = 0) -> int:
    """Machine contribution rows: one per machine per level every ``every_minutes``, 2 s after the minute,
    €0-€30 of eligible wagers at 1.2%. The rows name ledger rows and levels by number only (the table has no
    database foreign keys, and the reports read neither)."""
    from django.db import connection

    steps = days * 24 * 60 // every_minutes
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            INSERT INTO jackpots_machinecontribution (entry_id, level_id, machine_id, at, wagered_cents,
                current_mc, reserve_mc, overflow_mc, contributed_mc)
            SELECT {entry_offset} + k, l, m.id,
                ({start_sql}) + k * %s * interval '1 minute' + interval '2 seconds',
                w, w * 10, w * 2, 0, w * 12
            FROM generate_series(0, %s - 1) k
            CROSS JOIN generate_series(1, %s) l
            CROSS JOIN slots_slotmachine m
            CROSS JOIN LATERAL (SELECT (random() * 3000 + 0 * (k + m.id))::bigint AS w) x
            """,
            [every_minutes, steps, levels],
        )
        count = cursor.rowcount
        cursor.execute("ANALYZE jackpots_machinecontribution")
    return count


def _timed(label: str, action, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    print(f"{label:<62} {best * 1000:9.0f} ms (best of {repeat})")
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--machines", type=int, default=450)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--games-per-day", type=int, default=400)
    parser.add_argument("--contribution-minutes", type=int, default=1, help="a row per machine, level and")
    parser.add_argument("--levels", type=int, default=2, help="levels every machine contributes to")
    parser.add_argument("--database", default=BENCH_DB)
    parser.add_argument("--keep", action="store_true", help="reuse a filled bench database")
    args = parser.parse_args()

    reused = _create_database(args.server, args.database, args.keep)
    _setup(f"{args.server}/{args.database}")
    from datetime import UTC, date, datetime, timedelta

    import psutil
    from django.core.management import call_command
    from django.db import connection
    from django.db.models import Sum
    from django.test import Client
    from django.test.utils import setup_test_environment

    from jackpots.models import MachineContribution
    from slots.models import MachineEvent
    from workspace.models import MachineHourStat
    from workspace.reports.services import machine_hour_stats_refresh

    print(f"load average {os.getloadavg()}, {psutil.cpu_count()} cores")
    first = date(2026, 10, 1)
    last = first + timedelta(days=args.days - 1)
    start_sql = "TIMESTAMPTZ '2026-10-01 06:00:00+02'"
    if not reused:
        call_command("migrate", verbosity=0)
        _floor(args.machines)
        started = time.perf_counter()
        count = _events(args.days, args.games_per_day, start_sql)
        print(f"generated {count:,} game events in {time.perf_counter() - started:.0f} s")
        started = time.perf_counter()
        count = _contributions(args.days, args.contribution_minutes, args.levels, start_sql)
        print(
            f"generated {count:,} machine contribution rows (every {args.contribution_minutes} min, "
            f"{args.levels} levels) in {time.perf_counter() - started:.0f} s"
        )
        started = time.perf_counter()
        now = datetime.now(UTC)
        hours = machine_hour_stats_refresh(now=now - timedelta(minutes=10))
        print(f"summary build: {hours:,} machine-hours in {time.perf_counter() - started:.1f} s")
    events = MachineEvent.objects.count()
    rows = MachineContribution.objects.count()
    print(f"{events:,} events, {rows:,} contribution rows, {MachineHourStat.objects.count():,} machine-hours")

    # Refreshes rescan everything above the last checkpoint taken 2 minutes before the previous refresh:
    # the first refreshes after a build rescan it all. Settle as the minute beat would, then time the
    # refresh after a day's worth of new events.
    started = time.perf_counter()
    machine_hour_stats_refresh(now=datetime.now(UTC) - timedelta(minutes=5))
    print(f"refresh with nothing new, checkpoints not yet settled: {time.perf_counter() - started:.1f} s")
    with connection.cursor() as cursor:
        cursor.execute("SELECT max(seq) FROM slots_machineevent")
        top = cursor.fetchone()[0]
    hour_games = max(args.games_per_day // 24, 1)
    last_day = f"{start_sql} + interval '{args.days - 1} days'"
    added = _events(1, hour_games * 24, last_day, seq_offset=top)
    with connection.cursor() as cursor:
        cursor.execute("SELECT max(entry_id) FROM jackpots_machinecontribution")
        entry_top = cursor.fetchone()[0] or 0
    added_rows = _contributions(
        1, args.contribution_minutes, args.levels, last_day, entry_offset=entry_top + 1
    )
    started = time.perf_counter()
    machine_hour_stats_refresh(now=datetime.now(UTC))
    print(
        f"incremental refresh after {added:,} new events and {added_rows:,} contribution rows: "
        f"{(time.perf_counter() - started) * 1000:.0f} ms"
    )
    summed = MachineHourStat.objects.aggregate(total=Sum("contributed_mc"))["total"]
    rows_sum = MachineContribution.objects.aggregate(total=Sum("contributed_mc"))["total"]
    print(f"summary contributions {summed:,} mc, the rows' sum {rows_sum:,} mc: equal {summed == rows_sum}")

    setup_test_environment()
    from django.contrib.auth.models import User

    user, _ = User.objects.get_or_create(username="bench", defaults={"is_staff": True, "is_superuser": True})
    client = Client()
    client.force_login(user)
    month = {"venue": "NOG", "first": str(first), "last": str(last)}
    for group in ("machine", "bank", "room", "day", "venue"):
        _timed(
            f"page: games per {group}, {args.days} days",
            lambda group=group: _ok(client.get("/floor/reports/games/", {**month, "group_by": group})),
        )
    _timed(
        "page: games per machine as CSV",
        lambda: _ok(client.get("/floor/reports/games/", {**month, "group_by": "machine", "format": "csv"})),
    )
    from floor.models import Room

    room = Room.objects.first()
    _timed(
        "page: coin in by hour, one room, one day",
        lambda: _ok(client.get("/floor/reports/room-hours/", {"room": room.pk, "day": str(last)})),
    )
    _timed("page: venue overview", lambda: _ok(client.get("/floor/NOG/")))

    month_start = datetime(2026, 10, 1, 4, tzinfo=UTC)

    def raw(sql: str) -> None:
        with connection.cursor() as cursor:
            cursor.execute(sql, [month_start, month_start + timedelta(days=args.days)])
            cursor.fetchall()

    _timed(
        "for comparison: the month summed from the raw events (SQL only)",
        lambda: raw(
            "SELECT machine_id, count(*), sum(wager_cents), sum(win_cents) FROM slots_machineevent "
            "WHERE type = 1 AND at >= %s AND at < %s GROUP BY machine_id"
        ),
        repeat=1,
    )
    _timed(
        "for comparison: the month's contributions summed from the rows (SQL)",
        lambda: raw(
            "SELECT machine_id, sum(contributed_mc) FROM jackpots_machinecontribution "
            "WHERE at >= %s AND at < %s GROUP BY machine_id"
        ),
        repeat=1,
    )


def _ok(response) -> None:
    if response.status_code != 200:
        raise SystemExit(f"HTTP {response.status_code}")


if __name__ == "__main__":
    main()
