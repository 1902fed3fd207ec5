"""``manage.py floor_ticker``: Celery beat's periodic jobs, in-process, for the embedded default.

Without Redis there is no worker or beat; this loop calls the same tasks on the same schedule
(config.celery's beat_schedule), so machines still go offline and pending contributions still apply.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from demo.services.ticker import beat_jobs_loop


class Command(BaseCommand):
    help = "Runs the beat schedule's tasks in this process, every --tick seconds, until stopped."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--ticks", type=int, default=None, help="Stop after this many ticks.")
        parser.add_argument("--tick", type=float, default=1.0, help="Seconds between ticks (default 1).")

    def handle(self, *args, ticks: int | None, tick: float, **options) -> None:
        try:
            done = beat_jobs_loop(ticks=ticks, tick_seconds=tick)
        except KeyboardInterrupt:
            return
        self.stdout.write(f"{done} tick(s) done.")
