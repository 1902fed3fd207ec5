"""Announcing level changes, hits, rules, themes and declarations to the signs, after commit.

The engine calls these through ``jackpots.hooks`` once its transaction commits: once per batch for the
levels it changed and once per hit. Each call sends one channel-layer message per progressive (its
group, see ``consumers``), carrying the values as committed and each level's value sequence, so a sign
can drop anything older than what it shows. Coalescing to at most SIGNAGE_MAX_UPDATES_PER_SECOND frames
happens per screen in the consumer: the database stays the truth and a sign that misses a message gets
the next one or, on reconnect, a full snapshot. The SAS gateways' connections join the same groups.
"""

from __future__ import annotations

import itertools
import os

from common.channels import groups_send
from jackpots.hooks import progressive_group
from signage.selectors import (
    hit_message,
    level_updates,
    rules_message,
    theme_message,
)

_batches = itertools.count(1)


def levels_changed(level_ids: list[int]) -> None:
    """The given levels have new amounts (one call per batch, never per event)."""
    if not level_ids:
        return
    updates = level_updates(sorted(set(level_ids)))
    # Every message names the batch and all its progressives, so a sign showing several of them knows
    # when it has the whole batch and can send one frame at once.
    batch = f"{os.getpid()}.{next(_batches)}"
    progressives = sorted(updates)
    groups_send(
        [
            (
                progressive_group(pid),
                {
                    "type": "levels.changed",
                    "progressive": pid,
                    "batch": batch,
                    "batch_progressives": progressives,
                    "pool_currency": update["pool_currency"],
                    "levels": update["levels"],
                },
            )
            for pid, update in updates.items()
        ]
    )


def hit_announced(hit_id: int) -> None:
    """A hit was recorded: screens celebrate it."""
    found = hit_message(hit_id)
    if found is None:
        return
    progressive_id, message = found
    groups_send([(progressive_group(progressive_id), message)])


def theme_changed(progressive_id: int) -> None:
    """A progressive's sign theme changed: its connected signs redraw its card without a reload."""
    message = theme_message(progressive_id)
    if message is not None:
        groups_send([(progressive_group(progressive_id), message)])


def progressive_news(progressive_id: int, message: dict) -> None:
    """News of a progressive from an app above the engine (tables: a declaration opened or ended):
    every sign of the progressive, and its gateways, get the message."""
    groups_send([(progressive_group(progressive_id), message)])


def rules_changed(progressive_id: int) -> None:
    """A progressive's rules changed (an applied parameter or pay table change): its connected signs show
    the new ones without a reload."""
    message = rules_message(progressive_id)
    if message is not None:
        groups_send([(progressive_group(progressive_id), message)])


def listeners_register() -> None:
    """The engine's news the signs listen to (``jackpots.hooks``)."""
    from jackpots.hooks import hooks

    hooks.levels_changed.append(levels_changed)
    hooks.hit_announced.append(hit_announced)
    hooks.rules_changed.append(rules_changed)
    hooks.progressive_news.append(progressive_news)
