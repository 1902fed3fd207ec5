"""The embedded periodic-job ticker: Celery beat's schedule run in-process on the embedded default."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import timedelta

from asgiref.sync import sync_to_async
from django.db import close_old_connections

logger = logging.getLogger(__name__)


def beat_jobs_run_due(
    schedule: dict[str, dict],
    last_run: dict[str, float],
    now: float,
    run: Callable[[str], object],
) -> list[str]:
    """Runs each beat entry whose interval has elapsed since ``last_run``; returns the entries run.

    Used by the embedded default (no Celery beat or worker) so the safety-net jobs still happen. A job
    that fails is logged and retried at its next interval: one broken job never stops the others.
    """
    ran: list[str] = []
    for name, entry in schedule.items():
        interval = entry["schedule"]
        seconds = interval.total_seconds() if isinstance(interval, timedelta) else float(interval)
        if name in last_run and now - last_run[name] < seconds:
            continue
        last_run[name] = now
        try:
            run(entry["task"])
        except Exception:
            logger.exception("Periodic job %s (%s) failed", name, entry["task"])
        ran.append(name)
    return ran


def _beat_app():
    from celery import current_app as app  # config.celery, the project's app, without importing config

    app.loader.import_default_modules()  # registers every app's tasks by name
    return app


def _beat_tick(app, last_run: dict[str, float]) -> None:
    close_old_connections()  # a long-lived process must survive a database restart
    beat_jobs_run_due(app.conf.beat_schedule, last_run, time.monotonic(), lambda name: app.tasks[name]())


def beat_jobs_loop(ticks: int | None = None, tick_seconds: float = 1.0) -> int:
    """Runs Celery beat's schedule in this process, calling each task in-process; returns ticks done."""
    app = _beat_app()
    last_run: dict[str, float] = {}
    done = 0
    while ticks is None or done < ticks:
        started = time.monotonic()
        _beat_tick(app, last_run)
        done += 1
        if ticks is not None and done >= ticks:
            break
        time.sleep(max(0.0, tick_seconds - (time.monotonic() - started)))
    return done


async def beat_jobs_serve(tick_seconds: float = 1.0) -> None:
    """The same ticker inside the ASGI server's event loop (the embedded default, ``config.asgi``).

    On the embedded default the channel layer lives in one process's memory: a ticker in a process of its
    own applied the floor's events and published the new amounts to a layer no sign listened to, so the
    signs froze on a quiet floor. Here each tick's jobs run in a worker thread through ``sync_to_async``,
    and what they publish (``async_to_sync`` inside) comes back to this loop, to the signs' layer."""
    app = await sync_to_async(_beat_app, thread_sensitive=False)()
    last_run: dict[str, float] = {}
    tick = sync_to_async(_beat_tick, thread_sensitive=False)
    while True:
        started = time.monotonic()
        await tick(app, last_run)
        await asyncio.sleep(max(0.0, tick_seconds - (time.monotonic() - started)))
