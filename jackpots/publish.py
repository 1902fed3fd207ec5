"""Announcing level changes and hits to signage, after commit.

The engine calls these from ``transaction.on_commit``; the signage work fills them in.
"""

from __future__ import annotations


def levels_changed(level_ids: list[int]) -> None:
    """The given levels have new amounts (one call per batch, never per event)."""


def hit_announced(hit_id: int) -> None:
    """A hit was recorded: screens celebrate it."""
