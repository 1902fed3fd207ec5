"""One link watcher per server process (per event loop): it re-evaluates, every
SIGNAGE_LINK_CHECK_SECONDS, the link state of the progressives its connected signs show, with one pair of
queries for all of them, and tells each sign about a change. A thousand signs cost the database the same
two queries as one. In the same round it re-reads the token digest of every connected sign's screen (one
more query) and closes the signs whose token was revoked or reissued since they connected; then it records
the last frame time of each screen it serves (``ScreenPresence``, for the workspace's sign preview)."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from datetime import datetime
from typing import Protocol

from channels.db import database_sync_to_async
from django.conf import settings

from common.loops import loop_local
from jackpots.selectors import progressive_links
from signage.selectors import screen_token_digests
from signage.services import screen_presence_frames

logger = logging.getLogger(__name__)


class LinkListener(Protocol):
    screen_id: int
    token_digest: str

    def last_frame_at(self) -> datetime | None: ...

    async def link_changed(self, progressive_id: int, state: str) -> None: ...

    async def token_revoked(self) -> None: ...


class LinkWatcher:
    def __init__(self) -> None:
        self.listeners: dict[int, set[LinkListener]] = defaultdict(set)
        self.signs: set[LinkListener] = set()
        self.task: asyncio.Task | None = None

    def watch(self, listener: LinkListener, progressive_ids: list[int]) -> None:
        self.signs.add(listener)
        for pid in progressive_ids:
            self.listeners[pid].add(listener)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    def unwatch(self, listener: LinkListener) -> None:
        self.signs.discard(listener)
        for pid in list(self.listeners):
            self.listeners[pid].discard(listener)
            if not self.listeners[pid]:
                del self.listeners[pid]
        if not self.signs and self.task is not None:
            self.task.cancel()
            self.task = None

    async def check(self) -> None:
        await self.tokens_check()
        states = await database_sync_to_async(progressive_links)(sorted(self.listeners))
        for pid, state in states.items():
            for listener in list(self.listeners.get(pid, ())):
                await listener.link_changed(pid, state)
        # Last: a failure to record presence must not hold back the signs' link states.
        await self.presence_write()

    async def tokens_check(self) -> None:
        signs = list(self.signs)
        digests = await database_sync_to_async(screen_token_digests)(sorted({s.screen_id for s in signs}))
        for sign in signs:
            if digests.get(sign.screen_id) != sign.token_digest:
                self.unwatch(sign)
                await sign.token_revoked()

    async def presence_write(self) -> None:
        """Each screen's last frame time, the latest of its signs here, for the workspace's preview."""
        last: dict[int, datetime] = {}
        for sign in self.signs:
            at = sign.last_frame_at()
            if at is not None and (sign.screen_id not in last or at > last[sign.screen_id]):
                last[sign.screen_id] = at
        if last:
            await database_sync_to_async(screen_presence_frames)(last)

    async def _run(self) -> None:
        interval = float(settings.SIGNAGE_LINK_CHECK_SECONDS)
        while self.signs:
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
