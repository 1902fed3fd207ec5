"""The progressives page and one level's history chart with a busy day of ledger rows, on PostgreSQL, in a
database of its own.

    .venv/bin/python bench/level_page.py [--rows-per-day 86400] [--days 1] [--database prog_bench_desk]

Writes one level's ledger as the engine would with a batch every second (a contribution row per batch,
a hit every few hours), then times reading the rows, drawing the chart, and the two pages through Django's
test client. Prints figures; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _setup(server_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(f"{server_url}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    os.environ["DATABASE_URL"] = f"{server_url}/{name}"
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.test_settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _ledger(rows: int, days: int):
    from datetime import timedelta

    from django.utils import timezone

    from jackpots.models import LedgerEntry, Level, Progressive

    progressive = Progressive.objects.create(name="Bench", kind=Progressive.Kind.LINKED)
    level = Level.objects.create(progressive=progressive, name="Grand", reset_mc=100_000_000, rate="0.01")
    end = timezone.now()
    start = end - timedelta(days=days)
    step = (end - start) / rows
    batch, amount = [], 100_000_000
    for index in range(rows):
        hit = index % 14_400 == 14_399  # a hit every four hours of one-second batches
        delta = 100_000_000 - amount if hit else 1_000
        batch.append(
            LedgerEntry(
                level=level,
                kind=LedgerEntry.Kind.HIT if hit else LedgerEntry.Kind.CONTRIBUTION,
                at=start + index * step,
                cycle=1,
                level_seq=index,
                current_delta_mc=delta,
            )
        )
        amount += delta
    LedgerEntry.objects.bulk_create(batch, batch_size=10_000)
    return level, start, end


def _timed(label: str, call) -> object:
    began = time.perf_counter()
    result = call()
    print(f"{label}: {(time.perf_counter() - began) * 1000:.0f} ms")
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows-per-day", type=int, default=86_400)
    parser.add_argument("--days", type=int, default=1)
    parser.add_argument("--database", default="prog_bench_desk")
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432")
    args = parser.parse_args()
    _setup(args.server, args.database)
    from django.contrib.auth.models import User
    from django.test import Client

    from workspace.progressives.chart import PLOT_WIDTH, level_chart
    from workspace.progressives.selectors import level_series

    rows = args.rows_per_day * args.days
    level, start, end = _timed(f"write {rows} ledger rows", lambda: _ledger(rows, args.days))
    series = _timed(
        "sum the rows per pixel (level_series)", lambda: level_series(level, start, end, PLOT_WIDTH)
    )
    svg = _timed(
        "draw the chart", lambda: level_chart(series, start, end, zone="Europe/Rome", caption="bench")
    )
    figures = f"{len(series.columns)} columns, {series.changes} rows, {len(series.hits)} hits"
    print(f"chart: {len(svg)} bytes, {figures}")
    client = Client()
    client.force_login(User.objects.create_superuser("bench", password="bench-password-1"))
    hours = min(args.days * 24, 168)
    for label, url in (
        ("level page", f"/progressives/levels/{level.pk}/?hours={hours}"),
        ("progressives page", "/progressives/"),
    ):
        client.get(url)
        _timed(label, lambda url=url: client.get(url))
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
