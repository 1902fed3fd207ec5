"""A site's socket to the link, ``/ws/link/`` (docs/wide-area.md "Down: the pool").

The site's key comes as the connection's ``Authorization: Bearer`` header and is checked at connect (a
missing, unknown or revoked key: accepted, then closed 4401, as the gateways' and the signs' sockets do).
The socket joins the group of each pool the site is an active member of, and its key's group, before it
reads the snapshot (a change committed in between arrives as a newer frame), sends one ``pool`` frame per
pool, then a ``pool`` frame at every change of a pool's value (``publish``, after the engine's commit), an
``award`` frame when an award is recorded, and a heartbeat every LINK_HEARTBEAT_SECONDS, at which it also
re-checks its key.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import timezone

from common.origins import websocket_origin_allowed
from linkcentral.publish import key_group, pool_group
from linkcentral.selectors import pool_frames, site_pool_ids
from linkcentral.services.keys import site_key_bearer

CLOSE_UNAUTHORIZED = 4401


def heartbeat_seconds() -> float:
    return float(settings.LINK_HEARTBEAT_SECONDS)


def _authorization(scope: dict[str, Any]) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            return bytes(value).decode("latin1")
    return None


def _key_site(authorization: str | None) -> tuple[int, int] | None:
    """(key id, site id) of an active key of an active site, or None."""
    key = site_key_bearer(authorization)
    return None if key is None else (key.pk, key.site_id)


class LinkConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels has no types
    async def connect(self) -> None:
        self.joined: list[str] = []
        self.shown_seq: dict[str, int] = {}
        self.heartbeat_task: asyncio.Task[None] | None = None
        if not websocket_origin_allowed(self.scope):
            await self.close()  # before accept: the handshake is refused with 403
            return
        self.authorization = _authorization(self.scope)
        found = await database_sync_to_async(_key_site)(self.authorization)
        await self.accept()
        if found is None:
            await self.close(code=CLOSE_UNAUTHORIZED)
            return
        key_id, site_id = found
        pool_ids = await database_sync_to_async(site_pool_ids)(site_id)
        for group in [key_group(key_id), *map(pool_group, pool_ids)]:
            await self.channel_layer.group_add(group, self.channel_name)
            self.joined.append(group)
        for frame in await database_sync_to_async(pool_frames)(pool_ids=pool_ids):
            await self.pool_send(frame)
        self.heartbeat_task = asyncio.get_running_loop().create_task(self.heartbeat())

    async def disconnect(self, code: int) -> None:
        if self.heartbeat_task is not None:
            self.heartbeat_task.cancel()
        for group in self.joined:
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """The link listens to nothing a site sends on this socket."""

    async def send_json(self, frame: dict[str, Any]) -> None:
        await self.send(text_data=orjson.dumps(frame).decode())

    async def pool_send(self, frame: dict[str, Any]) -> None:
        """A pool's value, unless the socket has already sent a newer or the same one."""
        if frame["value_seq"] <= self.shown_seq.get(frame["pool"], -1):
            return
        self.shown_seq[frame["pool"]] = frame["value_seq"]
        await self.send_json({key: value for key, value in frame.items() if key != "pool_id"})

    # --- from the channel layer (``publish``, after commit) ---------------------------------------------

    async def link_pool(self, message: dict[str, Any]) -> None:
        await self.pool_send(message["frame"])

    async def link_award(self, message: dict[str, Any]) -> None:
        await self.send_json(message["frame"])

    async def link_key_revoked(self, message: dict[str, Any]) -> None:
        await self.close(code=CLOSE_UNAUTHORIZED)

    # --- heartbeat and key ------------------------------------------------------------------------------

    async def heartbeat(self) -> None:
        interval = heartbeat_seconds()
        while True:
            await asyncio.sleep(interval)
            if await database_sync_to_async(_key_site)(self.authorization) is None:
                await self.close(code=CLOSE_UNAUTHORIZED)
                return
            await self.send_json({"type": "heartbeat", "at": timezone.now().isoformat()})
