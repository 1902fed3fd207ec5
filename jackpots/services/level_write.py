"""The one way to change a level's amount.

``levels_write`` locks the levels in primary-key order (the one order every writer uses, so no deadlock),
hands them to a step that loads their parameters and state and applies the pure engine (``core``), then
writes what the step returns: every changed level in ONE statement, the ledger rows in one insert, and,
after the transaction commits, the changed levels and the new hits to the signs (through ``jackpots.hooks``).
A write path that skipped the publish would leave the signs stale with no error; this module is the only
one that saves a level's amounts (``tests/jackpots/test_level_write.py`` holds every other module to it).

A step may raise (an ``EngineError``, say): then nothing is written and nothing is published. Steps may
call other services that write levels (a round's void voids its prize's hit): each write publishes its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from django.db import transaction

from jackpots import hooks
from jackpots.models import Hit, LedgerEntry, Level
from jackpots.services import core
from jackpots.services.levels import level_params, level_state, levels_lock, levels_state_save

T = TypeVar("T")


@dataclass(slots=True)
class Locked:
    """The locked levels. ``params`` and ``state`` read a level as it stands (after a nested write and a
    ``refresh_from_db``, as it stands then)."""

    levels: dict[int, Level]

    def params(self, level_id: int) -> core.Params:
        return level_params(self.levels[level_id])

    def state(self, level_id: int) -> core.State:
        return level_state(self.levels[level_id])


@dataclass(slots=True)
class Written(Generic[T]):
    """What a step did: the new state of each level it changed, the (unsaved) ledger rows, the hits it
    recorded, and whatever its caller wants back."""

    states: dict[int, core.State] = field(default_factory=dict)
    entries: list[LedgerEntry] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)
    result: T | None = None

    def returned(self) -> T:
        """``result``, for a step that always gives one (None there would be a defect of the step)."""
        if self.result is None:
            raise ValueError("the level write's step gave no result")
        return self.result


def levels_write(level_ids: Iterable[int], step: Callable[[Locked], Written[T]]) -> Written[T]:
    """Locks ``level_ids``, runs ``step`` on them and writes its changes, in the caller's transaction (or
    its own); publishes after commit. The ledger rows have their ids when this returns."""
    with transaction.atomic():
        locked = Locked(levels_lock(level_ids))
        written = step(locked)
        changed = sorted(written.states)
        levels_state_save([locked.levels[level_id] for level_id in changed], written.states)
        LedgerEntry.objects.bulk_create(written.entries)
        changes_publish(changed, [hit.id for hit in written.hits])
    return written


def changes_publish(level_ids: list[int], hit_ids: list[int]) -> None:
    """After commit: the changed levels (one message per progressive), then each hit."""
    hooks.levels_changed_on_commit(level_ids)
    for hit_id in hit_ids:
        hooks.hit_announced_on_commit(hit_id)
