"""Announcing level changes and hits to signage, after commit.

The engine calls these from ``transaction.on_commit``, once per batch for the levels it changed and once
per hit. Each call sends one channel-layer message per progressive (its group, see
``jackpots.signage.consumers``), carrying the values as committed and each level's value sequence, so a
sign can drop anything older than what it shows. Coalescing to at most SIGNAGE_MAX_UPDATES_PER_SECOND
frames happens per screen in the consumer: the database stays the truth and a sign that misses a message
gets the next one or, on reconnect, a full snapshot. A failure to publish is logged and never reaches the
engine: its transaction has committed and the money is safe.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import threading

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction

from jackpots.gateway.selectors import handpay_reset_target
from jackpots.signage.selectors import (
    declaration_message,
    hit_message,
    level_updates,
    rules_message,
    theme_message,
)

logger = logging.getLogger(__name__)


def progressive_group(progressive_id: int) -> str:
    return f"signage.progressive.{progressive_id}"


def gateway_group(venue_id: int) -> str:
    """The venue's SAS gateway connections (``jackpots.gateway.consumers``); amounts and hits reach them
    through the progressives' groups above, like the signs."""
    return f"gateway.venue.{venue_id}"


async def _group_send_all(messages: list[tuple[str, dict]]) -> None:
    layer = get_channel_layer()
    for group, message in messages:
        await layer.group_send(group, message)


_loop: asyncio.AbstractEventLoop | None = None
_loop_pid: int | None = None
_loop_lock = threading.Lock()
_batches = itertools.count(1)


def _publisher_loop() -> asyncio.AbstractEventLoop:
    """A long-lived event loop in a thread of this process (re-made after a fork), so that publishing
    reuses the layer's Redis connection instead of opening one per batch (5-15 ms each here)."""
    global _loop, _loop_pid  # noqa: PLW0603 - one loop per process
    with _loop_lock:
        if _loop is None or _loop_pid != os.getpid():
            _loop = asyncio.new_event_loop()
            _loop_pid = os.getpid()
            threading.Thread(target=_loop.run_forever, name="signage-publisher", daemon=True).start()
        return _loop


def _publish(messages: list[tuple[str, dict]]) -> None:
    try:
        if settings.USING_REDIS:
            asyncio.run_coroutine_threadsafe(_group_send_all(messages), _publisher_loop()).result(timeout=10)
        else:
            # The in-memory layer lives in the server's own loop: go through it.
            async_to_sync(_group_send_all)(messages)
    except Exception:
        logger.exception("Signage publish failed; signs catch up on the next change or reconnect.")


def levels_changed(level_ids: list[int]) -> None:
    """The given levels have new amounts (one call per batch, never per event)."""
    if not level_ids:
        return
    updates = level_updates(sorted(set(level_ids)))
    # Every message names the batch and all its progressives, so a sign showing several of them knows
    # when it has the whole batch and can send one frame at once.
    batch = f"{os.getpid()}.{next(_batches)}"
    progressives = sorted(updates)
    _publish(
        [
            (
                progressive_group(pid),
                {
                    "type": "levels.changed",
                    "progressive": pid,
                    "batch": batch,
                    "batch_progressives": progressives,
                    "pool_currency": update["pool_currency"],
                    "levels": update["levels"],
                },
            )
            for pid, update in updates.items()
        ]
    )


def hit_announced(hit_id: int) -> None:
    """A hit was recorded: screens celebrate it."""
    found = hit_message(hit_id)
    if found is None:
        return
    progressive_id, message = found
    _publish([(progressive_group(progressive_id), message)])


def theme_changed(progressive_id: int) -> None:
    """A progressive's sign theme changed: its connected signs redraw its card without a reload."""
    message = theme_message(progressive_id)
    if message is not None:
        _publish([(progressive_group(progressive_id), message)])


def declaration_changed(declaration_id: int) -> None:
    """A table declaration opened or ended: every sign of its progressive shows it or takes it away."""
    found = declaration_message(declaration_id)
    if found is not None:
        progressive_id, message = found
        _publish([(progressive_group(progressive_id), message)])


def rules_changed(progressive_id: int) -> None:
    """A progressive's rules changed (an applied parameter or pay table change): its connected signs show
    the new ones without a reload."""
    message = rules_message(progressive_id)
    if message is not None:
        _publish([(progressive_group(progressive_id), message)])


def rules_changed_on_commit(progressive_id: int) -> None:
    """Once the caller's transaction commits (at once outside one), the signs get the rules as committed."""
    transaction.on_commit(lambda: rules_changed(progressive_id))


def hit_paid(hit_id: int) -> None:
    """A hit was paid by the floor: a SAS machine in handpay lockup is reset by its venue's gateway."""
    found = handpay_reset_target(hit_id)
    if found is None:
        return
    venue_id, frame = found
    _publish([(gateway_group(venue_id), {"type": "gateway.command", "frame": frame})])
