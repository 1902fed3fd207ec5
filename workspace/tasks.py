"""Celery tasks of the floor app: thin, one service call."""

from __future__ import annotations

from celery import shared_task

from workspace.reports.services import machine_hour_stats_refresh


@shared_task
def machine_hour_stats_refresh_task() -> int:
    """Beat: the report summaries follow the raw game events (report pages also refresh when stale)."""
    return machine_hour_stats_refresh()
