"""``manage.py revoke_key <key or prefix>``: revokes a machine, gateway or table key, or a screen token.

The prefix is what the admin's keys lists show (the key's first 16 characters); the whole key is needed
only when a prefix names more than one active key. Prints what was revoked.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from jackpots.services.errors import EngineError
from jackpots.services.keys import key_revoke


class Command(BaseCommand):
    help = "Revokes the key (machine, gateway, table) or screen token given whole or by its listed prefix."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("key", help="The whole key, or the 16-character prefix the admin lists.")

    def handle(self, *args, **options) -> None:
        try:
            revoked = key_revoke(options["key"])
        except EngineError as error:
            raise CommandError(error.message) from None
        self.stdout.write(f"Revoked: {revoked}.")
