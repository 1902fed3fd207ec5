"""The sign's websocket, ``/ws/signage/<screen>/?token=...`` (docs/api.md "Signage").

Thin: the reads are selectors, the link checks a shared per-process watcher. What the consumer owns is
the pacing: it keeps the newest value of every level it shows and writes at most
SIGNAGE_MAX_UPDATES_PER_SECOND update frames a second, the first at once, the next when the interval has
passed, always with the latest value and its seq. Every frame carries ``n``, its number on this
connection, so a client can count what it missed.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import timezone

from common.origins import websocket_origin_allowed
from common.socket_limits import socket_claim_keep, socket_claim_release, socket_slot_claim
from signage.currency import ScreenContent
from signage.hub import frame_head, frame_text, hub_join, hub_leave
from signage.links import link_watcher
from signage.loops import start_eagerly
from signage.selectors import screen_authenticate, screen_content
from signage.services import screen_presence_connected, screen_presence_disconnected
from signage.snapshots import snapshot_share

CLOSE_UNAUTHORIZED = 4401
CLOSE_TOO_MANY = 4429  # the screen token already holds SIGNAGE_CONNECTIONS_PER_SCREEN live connections


class SignageConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.hub_key: ScreenContent | None = None
        self.frames = 0
        self.pending: dict[int, dict] = {}
        self.shown_seq: dict[int, int] = {}
        self.links: dict[int, str] = {}
        self.last_update_at = float("-inf")
        self.update_interval = 1 / float(settings.SIGNAGE_MAX_UPDATES_PER_SECOND)
        self.flush_handle: asyncio.TimerHandle | None = None
        self.heartbeat_task: asyncio.Task | None = None
        self.screen_id: int | None = None
        self.last_frame_time: float | None = None  # wall clock, for the screen's presence
        self.slot: int | None = None
        # Until the snapshot is out, the hub's frames wait: a sign's first frame is always its snapshot.
        self.snapshot_sent = False
        self.early: list[dict] = []
        if not websocket_origin_allowed(self.scope):
            await self.close()  # before accept: the handshake is refused with 403
            return
        slug = self.scope["url_route"]["kwargs"]["screen"]
        token = parse_qs(self.scope.get("query_string", b"").decode("latin1")).get("token", [""])[0]
        screen = await database_sync_to_async(screen_authenticate)(slug, token)
        # Accept, then close with 4401: a browser only sees the code of a connection that was opened.
        await self.accept()
        if screen is None:
            await self.close(code=CLOSE_UNAUTHORIZED)
            return
        # What the link watcher compares with the screen's current token, to close this sign when it is
        # revoked or reissued.
        self.token_digest = screen.token_digest
        content = await database_sync_to_async(screen_content)(screen)
        # Join (through this process's hub for this content) before reading the snapshot: a change
        # committed in between arrives as an update with a higher seq; anything older is dropped.
        self.hub_key = content
        await hub_join(self, self.hub_key)
        jackpots, declarations = await snapshot_share().get(self.hub_key)
        for jackpot in jackpots:
            self.links[jackpot["id"]] = jackpot["link"]
            for level in jackpot["levels"]:
                self.shown_seq[level["id"]] = level["seq"]
        await self.send_frame({"type": "snapshot", "jackpots": jackpots})
        # A declaration pending now follows the snapshot (read with it, after joining: its end comes later).
        for frame in declarations:
            await self.send_frame(frame)
        self._after_snapshot()
        # A live connection's slot, claimed once the snapshot is out: the snapshot reads signs connecting
        # together share (snapshot_share) stay shared, and one past the limit holds nothing.
        self.slot = await socket_slot_claim(
            "sign",
            self.token_digest,
            self.channel_name,
            settings.SIGNAGE_CONNECTIONS_PER_SCREEN,
            self._lease(),
        )
        if self.slot is None:
            await self.close(code=CLOSE_TOO_MANY)
            return
        socket_claim_keep(f"sign{self.slot}", self.token_digest, self.channel_name, self._lease())
        # The screen's presence is a write: after the snapshot, so a sign never waits for the database's
        # writers (on the embedded default, SQLite's one writer at a time) before it shows its amounts.
        self.screen_id = screen.id
        await database_sync_to_async(screen_presence_connected)(screen.id)
        link_watcher().watch(self, list(content.progressives))
        self.heartbeat_task = asyncio.get_running_loop().create_task(self.heartbeat())

    @staticmethod
    def _lease() -> float:
        # A slot lapses three heartbeats after its last renewal (the process renews it every heartbeat with
        # the other claims it keeps): a server process that died frees it.
        return 3 * float(settings.SIGNAGE_HEARTBEAT_SECONDS) + 1

    async def disconnect(self, code: int) -> None:
        if self.slot is not None:
            await socket_claim_release(f"sign{self.slot}", self.token_digest, self.channel_name)
        link_watcher().unwatch(self)
        if self.flush_handle is not None:
            self.flush_handle.cancel()
        if self.heartbeat_task is not None:
            self.heartbeat_task.cancel()
        if self.hub_key is not None:
            await hub_leave(self, self.hub_key)
        if self.screen_id is not None:
            await database_sync_to_async(screen_presence_disconnected)(self.screen_id, self.last_frame_at())

    def last_frame_at(self) -> datetime | None:
        if self.last_frame_time is None:
            return None
        return datetime.fromtimestamp(self.last_frame_time, tz=UTC)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Signs only listen."""

    async def send_frame(self, frame: dict) -> None:
        await self.send_head(frame_head(frame))

    async def send_head(self, head: str) -> None:
        """Writes the frame encoded as ``head`` (``hub.frame_head``) with this connection's next ``n``."""
        self.frames += 1
        self.last_frame_time = time.time()
        await self.send(text_data=frame_text(head, self.frames))

    # --- from the hub: plain calls, so a slow screen never holds the others back ----------------------

    def levels_received(self, levels: list[dict], head: str) -> None:
        if not self.snapshot_sent:
            self._hold(levels)
            return
        loop = asyncio.get_running_loop()
        pacing = self.last_update_at + self.update_interval - loop.time()
        if (
            pacing <= 0
            and not self.pending
            and all(level["seq"] > self.shown_seq.get(level["id"], -1) for level in levels)
        ):
            # Nothing held back and every level newer than shown: the hub's frame is this sign's frame.
            self._shown(levels, loop)
            start_eagerly(self.send_head(head))
            return
        for level in levels:
            newest = self.pending.get(level["id"], {}).get("seq", self.shown_seq.get(level["id"], -1))
            if level["seq"] > newest:
                self.pending[level["id"]] = level
        if not self.pending or self.flush_handle is not None:
            return
        self.flush_handle = loop.call_later(max(0.0, pacing), self._flush_now)

    def hit_received(self, frame: dict) -> None:
        self.frame_received(frame)

    def frame_received(self, frame: dict) -> None:
        if not self.snapshot_sent:
            self.early.append(frame)
            return
        start_eagerly(self.send_frame(frame))

    def _hold(self, levels: list[dict]) -> None:
        for level in levels:
            if level["seq"] > self.pending.get(level["id"], {}).get("seq", -1):
                self.pending[level["id"]] = level

    def _after_snapshot(self) -> None:
        """The frames that arrived while the snapshot was read: levels newer than it go out paced as
        usual, the rest are dropped; hits and link frames follow in their order."""
        self.snapshot_sent = True
        self.pending = {
            lid: level for lid, level in self.pending.items() if level["seq"] > self.shown_seq.get(lid, -1)
        }
        for frame in self.early:
            start_eagerly(self.send_frame(frame))
        self.early = []
        if self.pending and self.flush_handle is None:
            self.flush_handle = asyncio.get_running_loop().call_later(self.update_interval, self._flush_now)

    # --- pacing, heartbeat, link --------------------------------------------------------------------

    def _shown(self, levels: list[dict], loop: asyncio.AbstractEventLoop) -> None:
        for level in levels:
            self.shown_seq[level["id"]] = level["seq"]
        self.last_update_at = loop.time()

    def _flush_now(self) -> None:
        self.flush_handle = None
        if not self.pending:
            return
        levels = sorted(self.pending.values(), key=lambda level: level["id"])
        self.pending = {}
        self._shown(levels, asyncio.get_running_loop())
        start_eagerly(self.send_frame({"type": "update", "levels": levels}))

    async def heartbeat(self) -> None:
        interval = float(settings.SIGNAGE_HEARTBEAT_SECONDS)
        while True:
            await asyncio.sleep(interval)
            await self.send_frame({"type": "heartbeat", "at": timezone.now().isoformat()})

    async def token_revoked(self) -> None:
        await self.close(code=CLOSE_UNAUTHORIZED)

    async def link_changed(self, progressive_id: int, state: str) -> None:
        if self.links.get(progressive_id) != state:
            self.links[progressive_id] = state
            await self.send_frame({"type": "link", "jackpot": progressive_id, "state": state})
