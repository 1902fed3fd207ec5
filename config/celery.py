"""The Celery app: Redis broker when REDIS_URL is set, eager in-process otherwise."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("progressivo")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

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
