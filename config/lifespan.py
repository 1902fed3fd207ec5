"""The ASGI server's start and stop (uvicorn's lifespan protocol).

On the embedded default (no Redis: no beat, and a channel layer in this process's memory) the floor
ticker runs here, inside the server, when ``FLOOR_TICKER_IN_SERVER`` is on (``make run`` turns it on): the
new amounts it publishes then reach the signs this process serves. With Redis, beat and the workers do
that work and the setting is refused (config/settings.py).
"""

from __future__ import annotations

import asyncio
import contextlib

from django.conf import settings


class Lifespan:
    """Starts the in-server ticker at ``lifespan.startup`` and stops it at ``lifespan.shutdown``."""

    async def __call__(self, scope: dict, receive, send) -> None:
        ticker: asyncio.Task | None = None
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                if settings.FLOOR_TICKER_IN_SERVER:
                    from workspace.services.ticker import beat_jobs_serve  # the apps are ready by now

                    ticker = asyncio.create_task(beat_jobs_serve())
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if ticker is not None:
                    ticker.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await ticker
                await send({"type": "lifespan.shutdown.complete"})
                return
