"""The floor map's websocket: staff with floor.view_floor_map, logged in through the admin session."""

from __future__ import annotations

import asyncio
import contextlib

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.utils import timezone

from common.origins import websocket_origin_allowed
from floor.access import VIEW_FLOOR_MAP
from workspace.live.publish import room_group
from workspace.live.selectors import room_get, room_tiles

# Alarms (door, tilt, handpay, power) are pushed at once; going offline by silence and playing/idle
# changes are not announced by any event: a full snapshot this often catches them.
SNAPSHOT_SECONDS = 10
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404


class FloorMapConsumer(AsyncJsonWebsocketConsumer):
    room_id: int | None = None
    ticker: asyncio.Task | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if not websocket_origin_allowed(self.scope):
            # Another site's page: refused at the handshake (403), before anything is accepted.
            await self.close(code=CLOSE_FORBIDDEN)
            return
        if user is None or not user.is_authenticated or not user.is_staff:
            await self.refuse(CLOSE_FORBIDDEN)
            return
        if not await database_sync_to_async(user.has_perm)(VIEW_FLOOR_MAP):
            await self.refuse(CLOSE_FORBIDDEN)
            return
        kwargs = self.scope["url_route"]["kwargs"]
        room = await database_sync_to_async(room_get)(kwargs["venue"], int(kwargs["room"]))
        if room is None:
            await self.refuse(CLOSE_NOT_FOUND)
            return
        self.room_id = room.id
        await self.channel_layer.group_add(room_group(room.id), self.channel_name)
        await self.accept()
        await self.snapshot_send()
        self.ticker = asyncio.create_task(self.snapshots_forever())

    async def refuse(self, code: int) -> None:
        """Close with CODE where the page can read it: a close before the accept becomes the server's
        HTTP 403 to the handshake, and the code is lost."""
        await self.accept()
        await self.close(code=code)

    async def disconnect(self, code: int) -> None:
        if self.ticker is not None:
            self.ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.ticker
        if self.room_id is not None:
            await self.channel_layer.group_discard(room_group(self.room_id), self.channel_name)

    async def snapshot_send(self) -> None:
        tiles = await database_sync_to_async(room_tiles)(self.room_id, timezone.now())
        await self.send_json({"type": "snapshot", "machines": tiles})

    async def snapshots_forever(self) -> None:
        while True:
            await asyncio.sleep(SNAPSHOT_SECONDS)
            await self.snapshot_send()

    async def machines_update(self, message: dict) -> None:
        await self.send_json({"type": "update", "machines": message["machines"]})

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs) -> None:
        """The map only listens; anything it sends is ignored unread (decoding it as JSON first, as the
        JSON consumer does, let a frame that is not JSON crash the connection)."""
