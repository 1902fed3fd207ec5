"""Celery tasks of the jackpots app: thin, ids in, one service call."""

from __future__ import annotations

from celery import shared_task


@shared_task
def contributions_apply_task() -> int:
    """Applies pending game events to the levels (filled in by the engine work)."""
    return 0
