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
def connections_tidy(task=None, **kwargs) -> None:
    """Around each task, what Django does around each request: close the connections that are too old
    or broken, keep the others (settings.CELERY_DB_REUSE_MAX). Not for an eager task: it runs inside the
    caller's transaction."""
    if task is not None and not getattr(task.request, "is_eager", False):
        from django.db import close_old_connections

        close_old_connections()


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
