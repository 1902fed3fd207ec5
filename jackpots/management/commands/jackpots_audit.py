"""``manage.py jackpots_audit``: recomputes every level; prints each discrepancy; exits 1 if there is any."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand

from jackpots.audit import jackpots_audit


class Command(BaseCommand):
    help = (
        "Recomputes every level from the raw events, the ledger and the hits; exit status 1 on a discrepancy."
    )

    def handle(self, *args, **options) -> None:
        checked, found = jackpots_audit()
        for discrepancy in found:
            self.stdout.write(f"DISCREPANCY {discrepancy}")
        if found:
            self.stdout.write(self.style.ERROR(f"{len(found)} discrepancies in {checked} levels."))
            sys.exit(1)
        self.stdout.write(self.style.SUCCESS(f"Audit clean: {checked} levels."))
