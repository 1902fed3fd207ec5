"""Parsing an events post, in process: CPU per event of the body's decoding and each event's checks, and of
the two parts that cost most, the instant's parser and the digest. No database: one machine's batch of
games, as bench/ingest.py posts it, checked against that machine as the API reads it.

    .venv/bin/python bench/parse.py [--batch 100] [--rounds 3000]

Each figure is the best of five runs of ``--rounds`` batches (the machine is shared: the best run is the
one least disturbed); compare two versions with the same command in each checkout, one after the other.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _best_per_event(run: Callable[[], object], rounds: int, events: int) -> float:
    """The least CPU microseconds per event of five runs of ``rounds`` calls of ``run``."""
    best = float("inf")
    for _ in range(5):
        started = time.process_time()
        for _ in range(rounds):
            run()
        best = min(best, (time.process_time() - started) / rounds / events * 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--batch", type=int, default=100, help="games in the batch")
    parser.add_argument("--rounds", type=int, default=3000, help="batches a run")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DEBUG", "1")
    import django

    django.setup()
    import orjson

    from common.times import instant_parse, time_window
    from slots.services import parsing

    machine = parsing.MachineInfo(
        id=1,
        asset_number="NOG-0001",
        venue_id=1,
        bank_id=1,
        denomination_cents=50,
        min_bet_cents=50,
        max_bet_cents=450,
        meter_digits=10,
        status="in_service",
    )
    now = datetime.now(UTC)
    played = now - timedelta(minutes=1)
    # As bench/ingest.py writes it: milliseconds and a Z.
    at = played.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    body = orjson.dumps(
        {
            "events": [
                {"machine": "NOG-0001", "seq": seq, "at": at, "type": "game", "wager": 100, "win": 50}
                for seq in range(1, args.batch + 1)
            ]
        }
    )
    window, limits, principal = time_window(now), parsing.event_limits(), parsing.Principal(machine_id=1)
    machines = {"NOG-0001": machine}

    def batch_parse() -> list[parsing.ParsedEvent]:
        return [
            parsing.event_parse(
                index, raw, machines=machines, principal=principal, window=window, limits=limits
            )
            for index, raw in enumerate(parsing.events_decode(body))
        ]

    parsed = batch_parse()
    # The same wall time read as an hour east of UTC: an instant an hour earlier, still in the window.
    offset_at = played.replace(tzinfo=None).isoformat() + "+01:00"
    figures = {
        "decode and check, per event": _best_per_event(batch_parse, args.rounds, args.batch),
        "of which the body's decoding": _best_per_event(
            lambda: parsing.events_decode(body), args.rounds, args.batch
        ),
        "the instant's parser, a Z": _best_per_event(lambda: instant_parse(at, window), args.rounds, 1),
        "the instant's parser, +01:00": _best_per_event(
            lambda: instant_parse(offset_at, window), args.rounds, 1
        ),
        "the digest": _best_per_event(lambda: parsing._event_digest(parsed[0]), args.rounds, 1),
    }
    print(f"one machine's batch of {args.batch} games, best of 5 runs of {args.rounds}:")
    for label, microseconds in figures.items():
        print(f"  {label}: {microseconds:.2f} µs")


if __name__ == "__main__":
    main()
