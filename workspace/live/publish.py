"""Pushing machine changes to the floor maps. The ingest calls machines_changed after its commit."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone

logger = logging.getLogger(__name__)


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
