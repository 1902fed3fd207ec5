"""``manage.py link_forward``: sends every active membership's outbox to its link (one thread each)."""

from __future__ import annotations

import signal
import threading
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from linksite.forwarder import LinkForwarder
from linksite.models import LinkMembership


class Command(BaseCommand):
    help = "Send the wide-area outbox to the link, in order, until acknowledged (one loop per membership)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--once",
            action="store_true",
            help="Send one batch per active membership, say what came of it, exit.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["once"]:
            for membership in LinkMembership.objects.filter(active=True).order_by("id"):
                forwarder = LinkForwarder(membership.pk)
                try:
                    sent = forwarder.send_once()
                finally:
                    forwarder.close()
                self.stdout.write(
                    f"{membership}: {sent.outcome.value}, {sent.entries} entries, acked {sent.acked}"
                )
            return
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        running: dict[int, tuple[LinkForwarder, threading.Thread]] = {}
        every = float(settings.LINK_THROUGH_SECONDS)
        try:
            while not stop.is_set():
                # A membership added or switched on in the admin is picked up here.
                for membership_id in LinkMembership.objects.filter(active=True).values_list("id", flat=True):
                    if membership_id not in running or not running[membership_id][1].is_alive():
                        forwarder = LinkForwarder(membership_id)
                        forwarder.stop = stop
                        thread = threading.Thread(target=forwarder.run, name=f"link-forward-{membership_id}")
                        thread.start()
                        running[membership_id] = (forwarder, thread)
                        self.stdout.write(f"forwarding membership {membership_id}")
                stop.wait(max(every, 5.0))
        except KeyboardInterrupt:
            stop.set()
        for forwarder, thread in running.values():
            thread.join()
            forwarder.close()
