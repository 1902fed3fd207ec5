"""Sending to Channels groups from synchronous code (the engine's workers, the request threads).

The apps above the engine announce committed changes to their screens and gateways through the channel
layer; they share this one transport. With Redis, messages go through a long-lived event loop in a thread
of this process (re-made after a fork), so publishing reuses the layer's Redis connection instead of
opening one per batch (5-15 ms each here). A failure is logged and never reaches the caller: its
transaction has committed and the money is safe; screens catch up on the next change or reconnect.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings

logger = logging.getLogger(__name__)

GroupMessage = tuple[str, dict[str, Any]]

_loop: asyncio.AbstractEventLoop | None = None
_loop_pid: int | None = None
_loop_lock = threading.Lock()


async def _group_send_all(messages: list[GroupMessage]) -> None:
    layer = get_channel_layer()
    for group, message in messages:
        await layer.group_send(group, message)


def _publisher_loop() -> asyncio.AbstractEventLoop:
    global _loop, _loop_pid  # noqa: PLW0603 - one loop per process
    with _loop_lock:
        if _loop is None or _loop_pid != os.getpid():
            _loop = asyncio.new_event_loop()
            _loop_pid = os.getpid()
            threading.Thread(target=_loop.run_forever, name="channels-publisher", daemon=True).start()
        return _loop


def groups_send(messages: list[GroupMessage]) -> None:
    """Sends each (group, message) in order; logs and swallows a failure (see the module's docstring)."""
    if not messages:
        return
    try:
        if settings.USING_REDIS:
            asyncio.run_coroutine_threadsafe(_group_send_all(messages), _publisher_loop()).result(timeout=10)
        else:
            # The in-memory layer lives in the server's own loop: go through it.
            async_to_sync(_group_send_all)(messages)
    except Exception:
        logger.exception("Channel-layer publish failed; screens catch up on the next change or reconnect.")
