"""``manage.py link_reconcile [--pool CODE]``: the link's books per pool and per site, and each pool's
total check (docs/wide-area.md "The books"), in the active language's numbers. Exits 1 when a pool does
not balance, so a scheduled run can alert."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from linkcentral.books_display import SITE_COLUMNS, books_table
from linkcentral.selectors import link_books


class Command(BaseCommand):
    help = "Prints the wide-area link's reconciliation: each pool's sites and its total check."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--pool", help="Only this pool (its code).")

    def handle(self, *args: Any, **options: Any) -> None:
        books = link_books(options["pool"])
        if options["pool"] and not books:
            raise CommandError(f"No linked pool has the code {options['pool']!r}.")
        unbalanced = []
        for pool in books:
            table = books_table(pool)
            self.stdout.write(table.title)
            for row in table.rows:
                self.stdout.write("")
                for column, value in zip(SITE_COLUMNS, row, strict=True):
                    self.stdout.write(f"  {column}: {value}")
            self.stdout.write("")
            for what, value in table.checks:
                self.stdout.write(f"  {what}: {value}")
            self.stdout.write(f"  {'OK' if table.balanced else 'NOT BALANCED'}")
            self.stdout.write("")
            if not table.balanced:
                unbalanced.append(pool.code)
        if unbalanced:
            raise CommandError(f"Not balanced: {', '.join(unbalanced)}.", returncode=1)
