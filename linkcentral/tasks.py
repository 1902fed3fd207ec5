"""Celery tasks of the link: thin, ids in, one service call."""

from __future__ import annotations

from celery import shared_task

from linkcentral.services.apply import pool_entries_apply, pools_entries_apply


@shared_task  # type: ignore[untyped-decorator]  # celery has no type hints
def link_entries_apply_task(pool_id: int) -> int:
    """Applies a pool's settled entries (after a site's post)."""
    return pool_entries_apply(pool_id)


@shared_task  # type: ignore[untyped-decorator]  # celery has no type hints
def link_pools_apply_task() -> int:
    """Every pool's settled entries (beat: a settle window that passes with no post still applies)."""
    return pools_entries_apply()
