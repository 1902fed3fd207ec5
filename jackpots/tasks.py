"""Celery tasks of the jackpots app: thin, ids in, one service call."""

from __future__ import annotations

from celery import shared_task

from jackpots.services.contributions import contributions_apply_settling


@shared_task
def contributions_apply_task() -> int:
    """Applies pending game and jackpot events to the levels (after each ingest, and every second), waiting
    for those still inside their settle window."""
    return contributions_apply_settling()
