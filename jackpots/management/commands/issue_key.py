"""``manage.py issue_key <asset number>`` / ``--gateway <venue code>`` / ``--table <table code>``.

Prints the new key on stdout and nothing else, so it can be piped into a machine's configuration.
Each kind of key is one entry of ``Command.issuers``: another kind is another option and another entry.
The apps above the engine add theirs through ``jackpots.hooks.providers.key_issuers`` (tables: ``--table``).
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.management.base import BaseCommand, CommandError, CommandParser

from floor.models import Venue
from jackpots.hooks import providers
from slots.models import SlotMachine
from slots.services.keys import gateway_key_issue, machine_key_issue


def _machine_key(asset_number: str) -> str:
    machine = SlotMachine.objects.filter(asset_number=asset_number).first()
    if machine is None:
        raise CommandError(f"No machine has the asset number {asset_number!r}.")
    return machine_key_issue(machine)[1]


def _gateway_key(venue_code: str) -> str:
    venue = Venue.objects.filter(code=venue_code.upper()).first()
    if venue is None:
        raise CommandError(f"No venue has the code {venue_code!r}.")
    return gateway_key_issue(venue)[1]


class Command(BaseCommand):
    help = "Issues a new key and prints it (only the key). Earlier keys stay valid until revoked."

    # option destination -> function from the option's value to a new key
    issuers: dict[str, Callable[[str], str]] = {"asset_number": _machine_key, "gateway": _gateway_key}

    def all_issuers(self) -> dict[str, Callable[[str], str]]:
        return {**self.issuers, **{name: issuer.issue for name, issuer in providers.key_issuers.items()}}

    def add_arguments(self, parser: CommandParser) -> None:
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("asset_number", nargs="?", help="A machine's asset number, e.g. NOG-0101.")
        target.add_argument("--gateway", metavar="VENUE", help="A venue code (VEN, NOG): its gateway key.")
        for name, issuer in providers.key_issuers.items():
            target.add_argument(f"--{name}", metavar=issuer.metavar, help=issuer.help)

    def handle(self, *args, **options) -> None:
        for option, issue in self.all_issuers().items():
            if options.get(option):
                self.stdout.write(issue(options[option]))
                return
        others = "".join(
            f" or --{name} <{name} {issuer.metavar.lower()}>"
            for name, issuer in providers.key_issuers.items()
        )
        raise CommandError(f"Name a machine's asset number or use --gateway <venue code>{others}.")
