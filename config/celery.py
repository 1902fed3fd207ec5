"""The Celery app: Redis broker when REDIS_URL is set, eager in-process otherwise."""

from __future__ import annotations

import logging
import os

from celery import Celery, bootsteps
from celery.beat import PersistentScheduler
from celery.signals import task_postrun, task_prerun, worker_process_init, worker_ready

from common.heap import heap_freeze

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
logger = logging.getLogger(__name__)

app = Celery("progressivo")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# How often a consuming worker writes its heartbeat for /healthz (which counts those under 15 s old).
WORKER_HEARTBEAT_SECONDS = 5.0


class WorkerHeartbeat(bootsteps.StartStopStep):
    """While the worker consumes from the broker, its hostname's heartbeat in Redis, for /healthz: a
    consumer step, so it stops when the broker connection is lost and starts again with it."""

    requires = {"celery.worker.consumer.tasks:Tasks"}

    def __init__(self, parent, **kwargs) -> None:
        super().__init__(parent, **kwargs)
        self.timer_entry = None

    def start(self, consumer) -> None:
        heartbeat_write("worker_heartbeat_record", consumer.hostname)
        self.timer_entry = consumer.timer.call_repeatedly(
            WORKER_HEARTBEAT_SECONDS,
            heartbeat_write,
            ("worker_heartbeat_record", consumer.hostname),
            priority=10,
        )

    def stop(self, consumer) -> None:
        if self.timer_entry is not None:
            self.timer_entry.cancel()
            self.timer_entry = None
            heartbeat_write("worker_heartbeat_clear", consumer.hostname)

    shutdown = stop


def heartbeat_write(service: str, *args: str) -> None:
    """Calls common.heartbeats.<service>. Redis may be the thing that is down: the worker or beat carries
    on, and /healthz tells."""
    from common import heartbeats as services

    try:
        getattr(services, service)(*args)
    except Exception as exc:
        logger.warning("Heartbeat not written (%s): %s", service, exc)


app.steps["consumer"].add(WorkerHeartbeat)


class HeartbeatScheduler(PersistentScheduler):
    """Beat's scheduler, writing the time of each tick for /healthz (beat ticks at least every second,
    for the engine's safety-net run)."""

    def tick(self, *args, **kwargs) -> float:
        interval = super().tick(*args, **kwargs)
        heartbeat_write("beat_heartbeat_record")
        return interval


app.conf.beat_scheduler = "config.celery:HeartbeatScheduler"


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
    "table-declarations-lapse": {
        "task": "tables.tasks.declarations_lapse_task",
        "schedule": 5.0,
    },
    # The wide-area link: a pool's settle window that passes with no site posting still applies its entries.
    "link-pools-apply": {
        "task": "linkcentral.tasks.link_pools_apply_task",
        "schedule": 2.0,
    },
    "report-summaries-refresh": {
        "task": "workspace.tasks.machine_hour_stats_refresh_task",
        "schedule": 60.0,
    },
}


@worker_process_init.connect
@worker_ready.connect
def heap_freeze_at_start(**kwargs) -> None:
    """Each pool process's objects from its start (``worker_process_init``), and the worker's own once it is
    ready (``worker_ready``: the process that takes tasks from the broker and hands them to the pool, or
    runs them with the solo pool), out of the collector's full passes (common.heap). A full collection in
    either holds back the engine's batch and the signs waiting for it: the worker's took 175-337 ms in the
    signage bench with its pool processes frozen."""
    heap_freeze()
