"""The Celery app: Redis broker when REDIS_URL is set, eager in-process otherwise."""

from __future__ import annotations

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("progressivo")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
@task_postrun.connect
def connections_tidy(task=None, signal=None, **kwargs) -> None:
    """Around each task, what Django does around each request: close the connections that are too old
    or broken, keep the others (settings.CELERY_DB_REUSE_MAX). Not for an eager task: it runs inside the
    caller's transaction.

    Before the task, a kept connection is also health-checked at once: Django checks it lazily, on the
    first query, and the engine's first query runs inside transaction.atomic(), where a connection found
    dead (PostgreSQL restarted) is closed mid-transaction and fails the task."""
    if task is None or getattr(task.request, "is_eager", False):
        return
    from django.db import close_old_connections, connections

    close_old_connections()
    if signal is task_prerun:
        for connection in connections.all(initialized_only=True):
            connection.close_if_health_check_failed()


# Beat schedule: periodic safety nets. Each entry names a thin task that calls one service.
app.conf.beat_schedule = {
    "machines-mark-offline": {
        "task": "slots.tasks.machines_mark_offline_task",
        "schedule": 5.0,
    },
    "contributions-apply": {
        "task": "jackpots.tasks.contributions_apply_task",
        "schedule": 1.0,
    },
    "report-summaries-refresh": {
        "task": "floor.tasks.machine_hour_stats_refresh_task",
        "schedule": 60.0,
    },
}
