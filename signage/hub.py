"""One hub per screen content (set of progressives, venue currency) per server process.

Why: with a group membership per sign, every engine batch costs each of 1,000 signs one channel-layer
message per progressive (decode, dispatch), which the benchmark showed to be the server's main cost.
The hub joins the progressives' groups once for all the signs of this process that show them, gathers
the messages of one engine batch (one per progressive) into one, encodes the update frame once and hands
both to its signs with a plain call. Each sign then only paces and writes its frame. A hub for a venue
whose currency is not a pool's converts that pool's amounts once for all its signs
(``signage.currency``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

import orjson
from channels.layers import get_channel_layer
from django.conf import settings

from common.loops import loop_local
from jackpots.hooks import progressive_group
from signage.currency import ScreenContent, amounts_in, rate_book

logger = logging.getLogger(__name__)

Key = ScreenContent


def frame_head(frame: dict) -> str:
    """``frame`` as JSON without its closing brace: a sign appends its ``n`` (``frame_text``)."""
    return orjson.dumps(frame).decode()[:-1]


def frame_text(head: str, n: int) -> str:
    return f'{head},"n":{n}}}'


class Sign(Protocol):
    def levels_received(self, levels: list[dict], head: str) -> None: ...

    def hit_received(self, frame: dict) -> None: ...

    def frame_received(self, frame: dict) -> None: ...


class ScreenHub:
    def __init__(self, key: Key) -> None:
        self.key = key
        self.signs: set[Sign] = set()
        self.layer = get_channel_layer()
        self.channel: str | None = None
        self.task: asyncio.Task | None = None
        self.started = asyncio.get_running_loop().create_future()
        self.pending: dict[int, dict] = {}
        self.batches: dict[str | None, set[int]] = {}
        self.gather_handle: asyncio.TimerHandle | None = None

    async def start(self) -> None:
        try:
            self.channel = await self.layer.new_channel()
            for pid in self.key.progressives:
                await self.layer.group_add(progressive_group(pid), self.channel)
            self.task = asyncio.get_running_loop().create_task(self._run())
            self.started.set_result(None)
        except BaseException as exc:
            self.started.set_exception(exc)
            raise

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
        if self.gather_handle is not None:
            self.gather_handle.cancel()
        if self.channel is not None:
            for pid in self.key.progressives:
                await self.layer.group_discard(progressive_group(pid), self.channel)

    async def _run(self) -> None:
        while True:
            message = await self.layer.receive(self.channel)
            try:
                if message["type"] == "levels.changed":
                    extra = {
                        level["id"]: await self._extra(message, amount=level["cents"])
                        for level in message["levels"]
                        if "cents" in level
                    }
                    self._levels(message, extra)
                elif message["type"] == "hit.announced":
                    frame = {
                        **message["frame"],
                        **await self._extra(message, **message.get("cents", {})),
                    }
                    for sign in list(self.signs):
                        sign.hit_received(frame)
                elif message["type"] == "declaration.changed":
                    for sign in list(self.signs):
                        sign.frame_received(message["frame"])
                elif message["type"] in ("theme.changed", "rules.changed"):
                    # A progressive's theme or rules: {"type": "theme", "jackpot": id, "theme": {...}}.
                    kind = message["type"].split(".")[0]
                    frame = {"type": kind, "jackpot": message["progressive"], kind: message[kind]}
                    for sign in list(self.signs):
                        sign.frame_received(frame)
            except Exception:
                logger.exception("Signage hub could not handle %s", message.get("type"))

    async def _extra(self, message: dict, **pool_cents: int) -> dict:
        """What a frame adds for this hub's currency: nothing when it is the pool's (EUR on EUR)."""
        pool_currency = message.get("pool_currency", self.key.currency)
        if pool_currency == self.key.currency:
            return {}
        rate = await rate_book().rate(pool_currency, self.key.currency)
        return amounts_in(self.key.currency, pool_currency, rate, **pool_cents)

    def _levels(self, message: dict, extra: dict[int, dict]) -> None:
        for published in message["levels"]:
            level = {
                "id": published["id"],
                "amount_eur": published["amount_eur"],
                "seq": published["seq"],
                "state": published.get("state", "active"),
                **extra.get(published["id"], {}),
            }
            known = self.pending.get(level["id"])
            if known is None or level["seq"] > known["seq"]:
                self.pending[level["id"]] = level
        # The batch is complete here when the messages of all our progressives in it have come.
        batch = message.get("batch")
        waiting = self.batches.setdefault(
            batch, set(message.get("batch_progressives", ())) & set(self.key.progressives)
        )
        waiting.discard(message["progressive"])
        if not waiting:
            del self.batches[batch]
        if not self.batches:
            self._deliver()
        elif self.gather_handle is None:
            # A lost message must not hold the others back for long.
            delay = settings.SIGNAGE_GATHER_MILLISECONDS / 1000
            self.gather_handle = asyncio.get_running_loop().call_later(delay, self._deliver)

    def _deliver(self) -> None:
        if self.gather_handle is not None:
            self.gather_handle.cancel()
            self.gather_handle = None
        self.batches.clear()
        levels = sorted(self.pending.values(), key=lambda level: level["id"])
        self.pending = {}
        if levels:
            # Encoded once for all the signs: each one only adds its frame number.
            head = frame_head({"type": "update", "levels": levels})
            for sign in list(self.signs):
                sign.levels_received(levels, head)


_hubs: dict[asyncio.AbstractEventLoop, dict[Key, ScreenHub]] = {}


def _loop_hubs() -> dict[Key, ScreenHub]:
    return loop_local(_hubs, dict)


async def hub_join(sign: Sign, key: Key) -> None:
    """Returns once the hub's groups are joined: anything published from then on reaches ``sign``."""
    hubs = _loop_hubs()
    hub = hubs.get(key)
    if hub is None:
        hub = hubs[key] = ScreenHub(key)
        hub.signs.add(sign)
        try:
            await hub.start()
        except BaseException:
            del hubs[key]
            raise
    else:
        hub.signs.add(sign)
        await asyncio.shield(hub.started)


async def hub_leave(sign: Sign, key: Key) -> None:
    hubs = _loop_hubs()
    hub = hubs.get(key)
    if hub is None:
        return
    hub.signs.discard(sign)
    if not hub.signs:
        del hubs[key]
        await hub.stop()
