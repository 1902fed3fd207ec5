"""``manage.py seed_venezia``: both venues of the Casinò di Venezia, their floor and progressives."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from demo.seed import floor_seed, screens_seed
from demo.seed_progressives import progressives_seed
from tables.seed import tables_seed


class Command(BaseCommand):
    help = "Creates the venues, rooms, banks, machines, progressives, tables and screens. Idempotent."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--machines-per-room",
            type=int,
            default=None,
            help="Machines per room, named ones included (default: about 300 at NOG and 150 at VEN).",
        )

    def handle(self, *args, machines_per_room: int | None, **options) -> None:
        if machines_per_room is not None and machines_per_room < 0:
            raise CommandError("--machines-per-room must be zero or more.")
        with transaction.atomic():
            floor_seed(machines_per_room=machines_per_room)
            progressives_seed()
            tables_seed()
            screens_seed()
        self.stdout.write(self.style.SUCCESS("Seeded the Casinò di Venezia."))
