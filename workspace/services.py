"""Writes of the workspace: the demo administrator and the embedded periodic-job ticker."""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import close_old_connections

logger = logging.getLogger(__name__)


def admin_user_ensure(username: str = "admin") -> str:
    """Creates or updates the superuser ``username`` with a freshly generated password and returns it."""
    password = secrets.token_urlsafe(12)
    User = get_user_model()
    user, _created = User.objects.get_or_create(username=username)
    user.is_staff = True
    user.is_superuser = True
    user.is_active = True
    user.set_password(password)
    user.save()
    return password


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


def beat_jobs_loop(ticks: int | None = None, tick_seconds: float = 1.0) -> int:
    """Runs Celery beat's schedule in this process, calling each task in-process; returns ticks done."""
    from celery import current_app as app  # config.celery, the project's app (config imports workspace)

    app.loader.import_default_modules()  # registers every app's tasks by name

    def run(task_name: str) -> object:
        return app.tasks[task_name]()

    last_run: dict[str, float] = {}
    done = 0
    while ticks is None or done < ticks:
        started = time.monotonic()
        close_old_connections()  # a long-lived process must survive a database restart
        beat_jobs_run_due(app.conf.beat_schedule, last_run, started, run)
        done += 1
        if ticks is not None and done >= ticks:
            break
        time.sleep(max(0.0, tick_seconds - (time.monotonic() - started)))
    return done
