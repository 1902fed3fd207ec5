"""``start_eagerly``, how a sign writes its frames. (The sign server's per-loop state, its hubs, snapshot
reads, link watcher and rates, is kept with ``common.loops.loop_local``.)"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

logger = logging.getLogger(__name__)

_resumed: set[asyncio.Task] = set()


def start_eagerly(coro: Coroutine[Any, Any, None]) -> None:
    """Runs ``coro`` now, up to its first wait, as Python 3.12's eager tasks do. A frame the socket takes
    at once (the usual case) costs no task and no turn of the loop, which at a thousand signs per engine
    batch is a good part of the server's work; one that has to wait for the socket goes on in a task, so a
    slow screen holds back nobody else. A failure is logged: a sign that is going away cannot be written."""
    try:
        waiting = coro.send(None)
    except StopIteration:
        return
    except Exception:
        logger.debug("A sign's frame was not written", exc_info=True)
        return
    task = asyncio.get_running_loop().create_task(_resume(coro, waiting))
    _resumed.add(task)  # the loop keeps only a weak reference to a task
    task.add_done_callback(_resumed.discard)


async def _resume(coro: Coroutine[Any, Any, None], waiting: Any) -> None:
    """Drives ``coro`` on from where ``start_eagerly`` left it: waits for what it waits for, resumes it.

    A future ``coro`` yielded is waited on with ``asyncio.wait``, not awaited: awaiting it again would
    need asyncio's private blocking flag reset, and ``wait`` neither touches the future nor raises its
    exception (``coro`` reads the outcome itself on resuming)."""
    while True:
        try:
            if waiting is None:  # a bare yield: give the loop a turn
                try:
                    await asyncio.sleep(0)
                except asyncio.CancelledError as cancelled:
                    waiting = coro.throw(cancelled)
                    continue
            else:
                try:
                    await asyncio.wait([waiting])
                except asyncio.CancelledError as cancelled:
                    # As a task does: cancelling it cancels the future its coroutine waits on, and the
                    # coroutine reads that on resuming; a future already done cannot carry it, so it is
                    # thrown in.
                    if not waiting.cancel():
                        waiting = coro.throw(cancelled)
                        continue
            waiting = coro.send(None)
        except StopIteration:
            return
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.debug("A sign's frame was not written", exc_info=True)
            return
