"""Table games benchmark: the hand evaluator, and rounds recorded through the real round service.

    [DATABASE_URL=postgres://postgres@127.0.0.1:5432/<any>] .venv/bin/python bench/tables.py [--rounds N]

Prints five-card hands evaluated per second (all 2,598,960), seven-card hands per second (best five and
longest straight flush), and Caribbean Stud / Jumbo 7 rounds of 7 seats recorded per second on a test
database it creates and drops (SQLite in memory without DATABASE_URL), with the machine's load average.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.test_settings")


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


def evaluator() -> None:
    from tables.cards import DECK, category_5, category_best, straight_flush_length

    started = time.perf_counter()
    count = sum(1 for _ in map(category_5, itertools.combinations(DECK, 5)))
    elapsed = time.perf_counter() - started
    print(f"five-card hands: {count:,} in {elapsed:.2f} s = {count / elapsed:,.0f}/s ({_load()})")
    rng = random.Random(7)
    hands = [rng.sample(DECK, 7) for _ in range(200_000)]
    started = time.perf_counter()
    for cards in hands:
        category_best(cards)
        straight_flush_length(cards)
    elapsed = time.perf_counter() - started
    print(f"seven-card hands (best five + longest straight flush): {len(hands) / elapsed:,.0f}/s ({_load()})")


def rounds(count: int) -> None:
    import django

    django.setup()
    from django.db import connection

    from tables.cards import DECK, card_code
    from tables.models import Table
    from tables.seed import tables_seed
    from tables.services import round_record

    name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        tables_seed()
        t0 = datetime(2026, 11, 21, 18, tzinfo=UTC)
        rng = random.Random(11)
        for code in ("NOG-CSP-1", "NOG-CHE-1"):
            table = Table.objects.select_related("venue", "progressive__pay_table__level").get(code=code)
            per_seat = 5 if table.game == "caribbean_stud" else 2
            bodies = []
            for n in range(count):
                deck = [card_code(c) for c in DECK]
                rng.shuffle(deck)
                community = [] if per_seat == 5 else deck[-5:]
                seats = [
                    {"seat": s + 1, "jackpot_bet": 100, "cards": deck[s * per_seat : (s + 1) * per_seat]}
                    for s in range(7)
                ]
                bodies.append(
                    {
                        "round": f"B-{n}",
                        "at": (t0 + timedelta(seconds=n)).isoformat(),
                        "community": community,
                        "seats": seats,
                    }
                )
            started = time.perf_counter()
            for data in bodies:
                round_record(table, data)
            elapsed = time.perf_counter() - started
            print(
                f"{table.game} rounds of 7 seats on {connection.vendor}: {count / elapsed:,.0f}/s "
                f"({elapsed * 1000 / count:.1f} ms each, {_load()})"
            )
    finally:
        connection.creation.destroy_test_db(name, verbosity=0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=1_000)
    args = parser.parse_args()
    evaluator()
    rounds(args.rounds)


if __name__ == "__main__":
    main()
