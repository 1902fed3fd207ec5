"""The SAS gateway's websocket, ``/ws/gateway/?token=<venue gateway key>`` (gateway/README.md "Server
route").

Thin: reads are selectors, the award answer a service. One connection per venue gateway, so it joins the
progressives' groups itself (no shared hub as for a thousand signs): the engine's after-commit publish
(``jackpots.hooks``) reaches it exactly as it reaches the signs, and the venue's gateway group carries
the commands the engine's news causes (``publish``: a mystery award, a paid handpay's reset). On connect
it sends the snapshot, then what is still open in the database (unanswered awards, handpay resets), so
nothing depends on a message that went out while the gateway was away.
"""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs

import orjson
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import timezone

from common.origins import websocket_origin_allowed
from common.socket_limits import socket_claim, socket_claim_keep, socket_claim_release, socket_claimed
from gatewaylink.publish import gateway_group
from gatewaylink.selectors import (
    awards_open,
    gateway_key_active,
    gateway_progressive_ids,
    gateway_snapshot,
    gateway_venue,
    handpay_resets_open,
)
from gatewaylink.services import GatewayRefused, award_result_record, gateway_link_record
from jackpots.hooks import progressive_group

# As the signs: a missing, unknown or revoked key (also one revoked while connected).
CLOSE_UNAUTHORIZED = 4401
# The key's gateway is already connected: one live connection per key, the first kept (a flood of
# connections with a stolen key is refused here, before any snapshot, and leaves the real gateway alone).
CLOSE_ALREADY_CONNECTED = 4409
# A live connection's claim lapses this many heartbeats after its last (a server process that died).
CLAIM_HEARTBEATS = 3


class GatewayConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.venue_id: int | None = None
        self.link_up = False
        self.joined: list[str] = []
        self.shown_seq: dict[int, int] = {}
        self.heartbeat_task: asyncio.Task | None = None
        if not websocket_origin_allowed(self.scope):
            await self.close()  # before accept: the handshake is refused with 403
            return
        self.token = parse_qs(self.scope.get("query_string", b"").decode("latin1")).get("token", [""])[0]
        self.claimed = False
        if await socket_claimed("gateway", self.token):  # only a valid key is ever claimed
            await self.accept()
            await self.close(code=CLOSE_ALREADY_CONNECTED)
            return
        venue_id = await database_sync_to_async(gateway_venue)(self.token)
        await self.accept()
        if venue_id is None:
            await self.close(code=CLOSE_UNAUTHORIZED)
            return
        self.claimed = await socket_claim("gateway", self.token, self.channel_name, self.claim_seconds())
        if not self.claimed:
            await self.close(code=CLOSE_ALREADY_CONNECTED)
            return
        socket_claim_keep("gateway", self.token, self.channel_name, self.claim_seconds())
        self.venue_id = venue_id
        await database_sync_to_async(gateway_link_record)(venue_id, up=True)
        self.link_up = True
        progressive_ids = await database_sync_to_async(gateway_progressive_ids)(venue_id)
        # Join before reading the snapshot: a change committed in between arrives as a newer update.
        for group in [gateway_group(venue_id), *map(progressive_group, progressive_ids)]:
            await self.channel_layer.group_add(group, self.channel_name)
            self.joined.append(group)
        await self.send_snapshot(progressive_ids)
        for frame in await database_sync_to_async(self.open_commands)():
            await self.send_json(frame)
        self.heartbeat_task = asyncio.get_running_loop().create_task(self.heartbeat())

    def open_commands(self) -> list[dict]:
        return [*awards_open(self.venue_id), *handpay_resets_open(self.venue_id)]

    async def send_snapshot(self, progressive_ids: list[int]) -> None:
        jackpots = await database_sync_to_async(gateway_snapshot)(progressive_ids)
        for jackpot in jackpots:
            for level in jackpot["levels"]:
                self.shown_seq[level["id"]] = level["seq"]
        await self.send_json({"type": "snapshot", "jackpots": jackpots})

    @staticmethod
    def claim_seconds() -> float:
        return float(settings.GATEWAY_HEARTBEAT_SECONDS) * CLAIM_HEARTBEATS

    async def release(self) -> None:
        if self.claimed:
            self.claimed = False
            await socket_claim_release("gateway", self.token, self.channel_name)

    async def disconnect(self, code: int) -> None:
        if getattr(self, "link_up", False):  # only a connection that was up goes down, once
            self.link_up = False
            await database_sync_to_async(gateway_link_record)(self.venue_id, up=False, close_code=code)
        await self.release()
        if self.heartbeat_task is not None:
            self.heartbeat_task.cancel()
        for group in self.joined:
            await self.channel_layer.group_discard(group, self.channel_name)

    async def send_json(self, frame: dict) -> None:
        await self.send(text_data=orjson.dumps(frame).decode())

    # --- from the gateway -------------------------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            message = orjson.loads(text_data if text_data is not None else bytes_data or b"")
        except orjson.JSONDecodeError:
            message = None
        try:
            if not isinstance(message, dict) or message.get("type") != "award_result":
                raise GatewayRefused("invalid_message")
            answer = await database_sync_to_async(award_result_record)(self.venue_id, message)
        except GatewayRefused as refused:
            answer = refused.message()
        await self.send_json(answer)

    # --- from the channel layer (the engine's and the floor's after-commit publish) ---------------------

    async def levels_changed(self, message: dict) -> None:
        levels = []
        for level in message["levels"]:
            if level["seq"] > self.shown_seq.get(level["id"], -1):
                self.shown_seq[level["id"]] = level["seq"]
                levels.append(
                    {
                        "id": level["id"],
                        "amount_eur": level["amount_eur"],
                        "seq": level["seq"],
                        # A suspended (or retired) level: the gateway takes it off the SAS broadcast.
                        "state": level.get("state", "active"),
                    }
                )
        if levels:
            await self.send_json({"type": "update", "levels": levels})

    async def hit_announced(self, message: dict) -> None:
        """The signs' WIN frame: the gateway shows the level's reset at once. A mystery award comes as a
        command of the venue's group (``publish.hit_announced``)."""
        await self.send_json(message["frame"])

    async def gateway_command(self, message: dict) -> None:
        await self.send_json(message["frame"])

    async def theme_changed(self, message: dict) -> None:
        """For the signs of the progressive's group: a gateway has no card to draw (without a handler,
        Channels would end the connection on the message)."""

    async def rules_changed(self, message: dict) -> None:
        """For the signs too: the machines are not told the players' rules."""

    async def declaration_changed(self, message: dict) -> None:
        """For the signs too: a table declaration concerns the tables; the machines play on."""

    # --- heartbeat and key ------------------------------------------------------------------------------

    async def heartbeat(self) -> None:
        interval = float(settings.GATEWAY_HEARTBEAT_SECONDS)
        while True:
            await asyncio.sleep(interval)
            if not await database_sync_to_async(gateway_key_active)(self.token):
                await self.release()
                await self.close(code=CLOSE_UNAUTHORIZED)
                return
            await self.send_json({"type": "heartbeat", "at": timezone.now().isoformat()})
