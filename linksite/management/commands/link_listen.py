"""``manage.py link_listen``: hears every active membership's pool and awards from its link (a membership
added or switched on later is picked up within seconds)."""

from __future__ import annotations

import asyncio
import signal
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from linksite.listener import memberships_listen


class Command(BaseCommand):
    help = "Listen to the link's pool (websocket) and fetch its awards, reconnecting with back-off."

    def handle(self, *args: Any, **options: Any) -> None:
        asyncio.run(self._listen())

    async def _listen(self) -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        every = max(float(settings.LINK_THROUGH_SECONDS), 5.0)  # as often as the forwarder looks
        await memberships_listen(stop, every, lambda pk: self.stdout.write(f"listening for membership {pk}"))
