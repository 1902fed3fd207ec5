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

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from jackpots.signage.selectors import hit_frame, level_updates

logger = logging.getLogger(__name__)


def progressive_group(progressive_id: int) -> str:
    return f"signage.progressive.{progressive_id}"


async def _group_send_all(messages: list[tuple[str, dict]]) -> None:
    layer = get_channel_layer()
    for group, message in messages:
        await layer.group_send(group, message)


def _publish(messages: list[tuple[str, dict]]) -> None:
    try:
        async_to_sync(_group_send_all)(messages)
    except Exception:
        logger.exception("Signage publish failed; signs catch up on the next change or reconnect.")


def levels_changed(level_ids: list[int]) -> None:
    """The given levels have new amounts (one call per batch, never per event)."""
    if not level_ids:
        return
    updates = level_updates(sorted(set(level_ids)))
    _publish(
        [
            (progressive_group(pid), {"type": "levels.changed", "progressive": pid, "levels": levels})
            for pid, levels in updates.items()
        ]
    )


def hit_announced(hit_id: int) -> None:
    """A hit was recorded: screens celebrate it."""
    found = hit_frame(hit_id)
    if found is None:
        return
    progressive_id, frame = found
    _publish([(progressive_group(progressive_id), {"type": "hit.announced", "frame": frame})])
