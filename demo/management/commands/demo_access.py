"""``manage.py demo_access``: the demo's admin password and screen tokens, kept across restarts, and the
summary block printed once the server answers (scripts/run)."""

from __future__ import annotations

import time
import urllib.error
import urllib.request

from django.core.management.base import BaseCommand, CommandError, CommandParser

from demo.services.start import demo_access_keep, demo_summary


def server_wait(url: str, timeout: float) -> bool:
    """True once the server answers. The admin's login page, not /healthz: health is 503 (and logged as
    an error) until the worker's first heartbeat, while the pages already work."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url.rstrip('/')}/admin/login/", timeout=2):
                return True
        except urllib.error.HTTPError:
            return True  # it answers
        except OSError:
            time.sleep(0.3)
    return False


class Command(BaseCommand):
    help = "Keeps the admin password and screen tokens of the demo (var/demo/) and prints where things are."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000", help="The server's address.")
        parser.add_argument("--username", default="admin")
        parser.add_argument(
            "--wait", type=float, default=0, metavar="SECONDS", help="Print once the server answers."
        )

    def handle(self, *args, url: str, username: str, wait: float, **options) -> None:
        access = demo_access_keep(username)
        if wait and not server_wait(url, wait):
            raise CommandError(f"The server at {url} did not answer within {wait:.0f} s.")
        self.stdout.write(demo_summary(access, url))
