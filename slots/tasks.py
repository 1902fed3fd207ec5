"""Celery tasks of the slots app: thin, ids in, one service call."""

from __future__ import annotations

from celery import shared_task

from slots.services.machines import machines_mark_offline


@shared_task
def machines_mark_offline_task() -> int:
    """Beat: machines silent past MACHINE_OFFLINE_AFTER_SECONDS go offline until their next event."""
    return machines_mark_offline()
