"""``manage.py simulate_floor``: players on both venues' machines, posting through the real events API."""

from __future__ import annotations

import random
import sys

from django.core.management.base import BaseCommand, CommandError, CommandParser

from demo.simulator import FloorSimulator, floor_load, gateway_keys_issue
from demo.simulator_tables import TableSimulator, table_keys_issue, tables_load


class Command(BaseCommand):
    help = (
        "Simulates play on the floor through POST /api/v1/events and table rounds through "
        "POST /api/v1/tables/<code>/rounds (see demo/simulator.py and demo/simulator_tables.py)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000", help="The server to post to.")
        parser.add_argument(
            "--rate", type=float, default=1.0, help="Speed of play: 1 is real time, 2 twice as fast."
        )
        parser.add_argument("--duration", type=float, default=None, help="Seconds to run (default: forever).")
        parser.add_argument("--seed", type=int, default=None, help="Random seed, for a repeatable floor.")
        parser.add_argument(
            "--hour", type=int, default=None, help="Play as at this local hour (default: the current one)."
        )
        parser.add_argument(
            "--key",
            action="append",
            default=[],
            metavar="VENUE=KEY",
            help="A gateway key per venue (default: new keys are issued for this run).",
        )
        parser.add_argument(
            "--no-tables", action="store_true", help="Machines only: no Caribbean Stud or Jumbo 7 rounds."
        )

    def handle(self, *args, url: str, rate: float, duration: float | None, seed: int | None,
               hour: int | None, key: list[str], no_tables: bool, **options) -> None:  # fmt: skip
        if rate <= 0:
            raise CommandError("--rate must be more than 0.")
        if hour is not None and not 0 <= hour <= 23:
            raise CommandError("--hour must be between 0 and 23.")
        rng = random.Random(seed)
        machines = floor_load(rng)
        if not machines:
            raise CommandError("The floor has no machines: run `manage.py seed_venezia` first.")
        keys = dict(item.split("=", 1) for item in key) if key else gateway_keys_issue()
        missing = sorted({machine.venue for machine in machines} - set(keys))
        if missing:
            raise CommandError(f"No gateway key for venue(s) {', '.join(missing)}: pass --key VENUE=KEY.")
        tables = None
        if not no_tables:
            sim_tables = tables_load()
            keys_tables = table_keys_issue(sim_tables)
            tables = TableSimulator(url=url, keys=keys_tables, tables=sim_tables, rng=rng, rate=rate)
        simulator = FloorSimulator(
            url=url, keys=keys, machines=machines, rng=rng, rate=rate, hour=hour, tables=tables
        )
        tty = sys.stdout.isatty()

        def progress(line: str) -> None:
            self.stdout.write(("\r" + line) if tty else line, ending="" if tty else "\n")
            self.stdout.flush()

        try:
            totals = simulator.run(duration, progress)
        except PermissionError as exc:
            raise CommandError(str(exc)) from None
        except KeyboardInterrupt:
            totals = simulator.totals
        self.stdout.write("")
        self.stdout.write(
            self.style.SUCCESS(
                f"{totals.games} games, {totals.accepted} events accepted, {totals.hits} hits."
            )
        )
