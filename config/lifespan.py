"""The ASGI server's start and stop (uvicorn's lifespan protocol).

Whatever an app registered in ``common.lifespan`` runs here, inside the server, from startup to shutdown.
On the embedded default (no Redis: no beat, and a channel layer in this process's memory) the demo app
registers the floor ticker when ``FLOOR_TICKER_IN_SERVER`` is on (``make run`` turns it on): the new
amounts it publishes then reach the signs this process serves. With Redis, beat and the workers do that
work and the setting is refused (config/settings.py).
"""

from __future__ import annotations

import asyncio
import contextlib

from common.lifespan import hooks


class Lifespan:
    """Starts the registered server tasks at ``lifespan.startup`` and stops them at ``lifespan.shutdown``."""

    async def __call__(self, scope: dict, receive, send) -> None:
        running: list[asyncio.Task] = []
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                # The apps are ready by now: their registrations are in.
                running = [asyncio.create_task(task()) for task in hooks.server_tasks]
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                for task in running:
                    task.cancel()
                for task in running:
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                await send({"type": "lifespan.shutdown.complete"})
                return
