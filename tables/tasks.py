"""Celery tasks of the table games: thin, one service call."""

from __future__ import annotations

from celery import shared_task

from tables.services.declarations import declarations_lapse


@shared_task
def declarations_lapse_task() -> int:
    """Records the lapse of the table declarations whose window has passed, so their signs hear of it."""
    return declarations_lapse()
