"""One link watcher per server process (per event loop): it re-evaluates, every
SIGNAGE_LINK_CHECK_SECONDS, the link state of the progressives its connected signs show, with one pair of
queries for all of them, and tells each sign about a change. A thousand signs cost the database the same
two queries as one."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from typing import Protocol

from channels.db import database_sync_to_async
from django.conf import settings

from jackpots.selectors import progressive_links
from jackpots.signage.loops import loop_local

logger = logging.getLogger(__name__)


class LinkListener(Protocol):
    async def link_changed(self, progressive_id: int, state: str) -> None: ...


class LinkWatcher:
    def __init__(self) -> None:
        self.listeners: dict[int, set[LinkListener]] = defaultdict(set)
        self.task: asyncio.Task | None = None

    def watch(self, listener: LinkListener, progressive_ids: list[int]) -> None:
        for pid in progressive_ids:
            self.listeners[pid].add(listener)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    def unwatch(self, listener: LinkListener) -> None:
        for pid in list(self.listeners):
            self.listeners[pid].discard(listener)
            if not self.listeners[pid]:
                del self.listeners[pid]
        if not self.listeners and self.task is not None:
            self.task.cancel()
            self.task = None

    async def check(self) -> None:
        states = await database_sync_to_async(progressive_links)(sorted(self.listeners))
        for pid, state in states.items():
            for listener in list(self.listeners.get(pid, ())):
                await listener.link_changed(pid, state)

    async def _run(self) -> None:
        interval = float(settings.SIGNAGE_LINK_CHECK_SECONDS)
        while self.listeners:
            await asyncio.sleep(interval)
            try:
                await self.check()
            except asyncio.CancelledError:
                raise
            except Exception:
                # A database hiccup must not stop the watcher: the next round tries again.
                logger.exception("Signage link check failed")


_watchers: dict[asyncio.AbstractEventLoop, LinkWatcher] = {}


def link_watcher() -> LinkWatcher:
    return loop_local(_watchers, LinkWatcher)
