"""``manage.py demo_wide_area link|site``: the demo's wide-area Jumbo 7, one link and its sites
(``demo.services.wide_area``; ``make run WIDE_AREA=1`` starts them)."""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from demo.services.wide_area import link_seed, site_join


class Command(BaseCommand):
    help = "Seeds this installation as the wide-area link, or joins it to a link as a site."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("role", choices=["link", "site"])
        parser.add_argument("--keys", type=Path, required=True, help="JSON file of the sites' keys.")
        parser.add_argument("--site", action="append", default=[], metavar="CODE:NAME:CURRENCY",
                            help="link: a site of the pool (repeat).")  # fmt: skip
        parser.add_argument("--code", help="site: its code at the link.")
        parser.add_argument("--currency", default="EUR", help="site: the currency its venues bet in.")
        parser.add_argument("--rate", help="site: units of its currency to the euro.")
        parser.add_argument("--link-url", help="site: the link's address.")
        parser.add_argument("--settle-seconds", type=int, default=120, help="link: the settle window.")

    def handle(self, *args, role: str, keys: Path, site: list[str], code: str | None, currency: str,
               rate: str | None, link_url: str | None, settle_seconds: int, **options) -> None:  # fmt: skip
        known = json.loads(keys.read_text()) if keys.exists() else {}
        if role == "link":
            try:
                sites = [tuple(spec.split(":")) for spec in site]
                _, issued = link_seed([(c, n, cur) for c, n, cur in sites], settle_seconds=settle_seconds)
            except ValueError as error:
                raise CommandError("--site is CODE:NAME:CURRENCY, e.g. LUG:Lugano:CHF.") from error
            keys.write_text(json.dumps({**known, **issued}, indent=2))
            self.stdout.write(f"Link: pool JUMBO7, sites {', '.join(c for c, *_ in sites)}.")
            return
        if not code or not link_url or code not in known:
            raise CommandError("site: --code, --link-url and a key for the code in --keys are needed.")
        try:
            parsed = Decimal(rate) if rate else None
        except InvalidOperation as error:
            raise CommandError(f"--rate is a decimal number, not {rate!r}.") from error
        site_join(currency, parsed, link_url, known[code])
        self.stdout.write(f"Site {code}: Jumbo 7 plays the link at {link_url}.")
