"""Pushing machine changes to the floor maps, after the change's commit and off the request that made it.

A request only adds its machines to the process's pending set; the pusher's thread (common.background)
reads their tiles and sends them, one query and one message per room for every machine that changed since
its last turn, at most every PUSH_INTERVAL seconds. Before, each event post that changed or started a
machine read its tiles and sent them itself: 13% of the server's time under load (py-spy), and a wait in
the post's answer. The in-memory layer of the embedded default lives on the server's loop and cannot be
reached from another thread's loop: with it the push stays on the request's thread, as it was.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Iterable

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.db import connection, transaction
from django.utils import timezone

from common.background import BackgroundSender

logger = logging.getLogger(__name__)

# A machine in play sends a game every few seconds; its tile needs one push when it starts playing, and
# the consumers' snapshots keep it "playing". Well within the map's playing window of 60 s.
PLAYED_PUSH_EVERY_SECONDS = 20
_played_pushed: dict[int, float] = {}
_played_lock = threading.Lock()
_clock = time.monotonic


def room_group(room_id: int) -> str:
    return f"floor.room.{room_id}"


# A door or a tilt reaches the maps at once when the pusher is idle, and within this when it just pushed.
PUSH_INTERVAL = 0.25
_pending: set[int] = set()
_pending_lock = threading.Lock()
# The pusher thread's own loop, kept for the process's life: the Redis layer keeps its connections per loop.
_pusher_loop = threading.local()


def _publish(machine_ids: list[int], group_send: Callable[[str, dict], object]) -> None:
    from workspace.live.selectors import tiles_by_room

    for room_id, tiles in tiles_by_room(machine_ids, timezone.now()).items():
        try:
            group_send(room_group(room_id), {"type": "machines.update", "machines": tiles})
        except Exception:
            # A map that misses a push catches up with its periodic snapshot; the ingest must not fail.
            logger.exception("floor map push failed for room %s", room_id)


def _push_pending() -> None:
    """The pusher's turn: every machine pending, in one read per room, on this thread's loop."""
    with _pending_lock:
        ids = sorted(_pending)
        _pending.clear()
    layer = get_channel_layer()
    if not ids or layer is None:
        return
    loop = getattr(_pusher_loop, "loop", None)
    if loop is None:
        loop = _pusher_loop.loop = asyncio.new_event_loop()
    try:
        _publish(ids, lambda group, message: loop.run_until_complete(layer.group_send(group, message)))
    finally:
        # As a request ends: a pooled connection goes back to the pool, a persistent one stays for the next
        # turn (a new one every turn made PostgreSQL start a backend four times a second).
        connection.close_if_unusable_or_obsolete()


_pusher = BackgroundSender(_push_pending, name="floor-push", interval=PUSH_INTERVAL)


def _push(machine_ids: list[int]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    if isinstance(layer, InMemoryChannelLayer):
        _publish(machine_ids, async_to_sync(layer.group_send))
        return
    with _pending_lock:
        _pending.update(machine_ids)
    _pusher.notify()


def machines_changed(machine_ids: Iterable[int]) -> None:
    """These machines' state may have changed: tell the maps of their rooms, once the change is committed."""
    ids = sorted(set(machine_ids))
    if ids:
        transaction.on_commit(lambda: _push(ids))


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
