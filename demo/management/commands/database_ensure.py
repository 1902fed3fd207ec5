"""``manage.py database_ensure``: creates the PostgreSQL database DATABASE_URL names if it is missing."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from demo.services.start import DemoStartRefused, database_ensure


class Command(BaseCommand):
    help = "Creates the PostgreSQL database of DATABASE_URL when it does not exist (nothing on SQLite)."

    def handle(self, *args, **options) -> None:
        try:
            created = database_ensure()
        except DemoStartRefused as exc:
            raise CommandError(str(exc)) from None
        if created:
            from django.db import connection

            self.stdout.write(f"Created the database {connection.settings_dict['NAME']}.")
