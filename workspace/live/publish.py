"""Pushing machine changes to the floor maps. The ingest calls machines_changed after its commit."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone

logger = logging.getLogger(__name__)

# A machine in play sends a game every few seconds; its tile needs one push when it starts playing, and
# the consumers' snapshots keep it "playing". Well within the map's playing window of 60 s.
PLAYED_PUSH_EVERY_SECONDS = 20
_played_pushed: dict[int, float] = {}
_played_lock = threading.Lock()
_clock = time.monotonic


def room_group(room_id: int) -> str:
    return f"floor.room.{room_id}"


def _publish(machine_ids: list[int]) -> None:
    from workspace.live.selectors import tiles_by_room

    layer = get_channel_layer()
    if layer is None:
        return
    for room_id, tiles in tiles_by_room(machine_ids, timezone.now()).items():
        try:
            async_to_sync(layer.group_send)(
                room_group(room_id), {"type": "machines.update", "machines": tiles}
            )
        except Exception:
            # A map that misses a push catches up with its periodic snapshot; the ingest must not fail.
            logger.exception("floor map push failed for room %s", room_id)


def machines_changed(machine_ids: Iterable[int]) -> None:
    """These machines' state may have changed: tell the maps of their rooms, once the change is committed."""
    ids = sorted(set(machine_ids))
    if ids:
        transaction.on_commit(lambda: _publish(ids))


def machines_played(machine_ids: Iterable[int]) -> None:
    """These machines played a game: push each to the maps at most once per PLAYED_PUSH_EVERY_SECONDS (per
    process), after the commit."""
    now = _clock()
    with _played_lock:
        due = [
            machine_id
            for machine_id in machine_ids
            if now - _played_pushed.get(machine_id, -PLAYED_PUSH_EVERY_SECONDS) >= PLAYED_PUSH_EVERY_SECONDS
        ]
        _played_pushed.update(dict.fromkeys(due, now))
    machines_changed(due)
