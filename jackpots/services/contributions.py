"""Applying pending machine events to the levels, exactly once (DESIGN "Exactly-once").

One batch is one transaction: claim up to ``batch_size`` pending events (``FOR UPDATE SKIP LOCKED`` on
PostgreSQL, so workers never wait on each other's events) and mark them applied in the same statement,
lock the touched levels in primary-key order, sum the eligible wagers per level in Python, write ONE
ledger row and ONE UPDATE per level (a hit inside the batch splits the level's sum at the hit), record the
batch. A worker killed anywhere leaves nothing of its batch: the events stay pending for the next one.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from jackpots import publish
from jackpots.models import ContributionBatch, HitKind, LedgerEntry, Level, ProgressiveMachine
from jackpots.services import core
from jackpots.services.hits import award_record_locked
from jackpots.services.levels import (
    PARAM_FIELDS,
    STATE_FIELDS,
    ledger_entry,
    level_params,
    level_state,
    levels_lock,
)
from slots.models import MachineEvent, SlotMachine

# Called inside the batch's transaction just before it commits; tests use it to kill a worker mid-batch.
batch_hook: Callable[[], None] | None = None

GAME = MachineEvent.Type.GAME
JACKPOT = MachineEvent.Type.JACKPOT
# Enough batches per call to drain a burst; beat calls again every second anyway.
MAX_BATCHES_PER_CALL = 200

_CLAIM_SQL = """
UPDATE slots_machineevent SET pending = false, applied_at = %s
WHERE id IN (
    SELECT id FROM slots_machineevent WHERE pending ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED
)
RETURNING id, machine_id, type, wager_cents, is_max_bet, level_id, amount_cents, at
"""


@dataclass(slots=True)
class _Event:
    id: int
    machine_id: int
    type: int
    wager_cents: int | None
    is_max_bet: bool | None
    level_id: int | None
    amount_cents: int | None
    at: dt.datetime


@dataclass(slots=True)
class _Pending:
    """Eligible wagers of one level not yet folded into its state."""

    wagered: int = 0
    count: int = 0
    first: int | None = None
    last: int | None = None
    excluded: set[int] = field(default_factory=set)

    def add(self, event: _Event) -> None:
        self.wagered += event.wager_cents or 0
        self.count += 1
        self.first = event.id if self.first is None else self.first
        self.last = event.id


def contributions_apply(batch_size: int | None = None) -> int:
    """Applies pending events batch by batch until none is left. Returns the number of events applied."""
    size = batch_size or settings.CONTRIBUTIONS_BATCH_SIZE
    total = 0
    for _ in range(MAX_BATCHES_PER_CALL):
        applied = contributions_batch_apply(size)
        total += applied
        if applied < size:
            break
    return total


def _batch_open() -> ContributionBatch:
    """The batch row; its ``applied_at`` is unique, so the events it marks name it."""
    at = timezone.now()
    for _ in range(20):
        try:
            with transaction.atomic():
                return ContributionBatch.objects.create(applied_at=at)
        except IntegrityError:
            at += dt.timedelta(microseconds=1)
    raise RuntimeError("could not stamp a contribution batch")


def _claim(size: int, at: dt.datetime) -> list[_Event]:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_CLAIM_SQL, [at, size])
            rows = cursor.fetchall()
    else:  # SQLite: the transaction holds the database's write lock, nothing to skip.
        columns = ["id", "machine_id", "type", "wager_cents", "is_max_bet", "level_id", "amount_cents", "at"]
        rows = list(MachineEvent.objects.filter(pending=True).order_by("id").values_list(*columns)[:size])
        MachineEvent.objects.filter(id__in=[row[0] for row in rows]).update(pending=False, applied_at=at)
    events = [_Event(*row) for row in rows]
    events.sort(key=lambda event: event.id)
    return events


def contributions_batch_apply(size: int) -> int:
    with transaction.atomic():
        batch = _batch_open()
        events = _claim(size, batch.applied_at)
        if not events:
            transaction.set_rollback(True)
            return 0
        touched, hits = _events_apply(events, batch)
        ContributionBatch.objects.filter(pk=batch.pk).update(
            event_count=len(events), first_event_id=events[0].id, last_event_id=events[-1].id
        )
        if batch_hook is not None:
            batch_hook()
        if touched:
            level_ids = sorted(touched)
            transaction.on_commit(lambda: publish.levels_changed(level_ids))
        for hit_id in hits:
            transaction.on_commit(lambda hit_id=hit_id: publish.hit_announced(hit_id))
    return len(events)


def _members(machine_ids: set[int]) -> dict[int, list[tuple[int, bool]]]:
    """machine id → [(progressive id, member enabled and machine in service)]."""
    rows = ProgressiveMachine.objects.filter(machine_id__in=machine_ids).values_list(
        "machine_id", "progressive_id", "enabled", "machine__status"
    )
    members: dict[int, list[tuple[int, bool]]] = {}
    for machine_id, progressive_id, enabled, status in rows:
        live = enabled and status == SlotMachine.Status.IN_SERVICE
        members.setdefault(machine_id, []).append((progressive_id, live))
    return members


def _events_apply(events: list[_Event], batch: ContributionBatch) -> tuple[set[int], list[int]]:
    members = _members({event.machine_id for event in events})
    progressive_ids = {pid for rows in members.values() for pid, _ in rows}
    level_ids = set(Level.objects.filter(progressive_id__in=progressive_ids).values_list("id", flat=True))
    levels = levels_lock(level_ids)
    by_progressive: dict[int, list[Level]] = {}
    for level in levels.values():
        by_progressive.setdefault(level.progressive_id, []).append(level)
    params = {lid: level_params(level) for lid, level in levels.items()}
    states = {lid: level_state(level) for lid, level in levels.items()}
    pending: dict[int, _Pending] = {lid: _Pending() for lid in levels}
    entries: list[LedgerEntry] = []
    hits: list[int] = []
    touched: set[int] = set()
    now = batch.applied_at

    def flush(lid: int) -> None:
        acc = pending[lid]
        if acc.count == 0:
            return
        states[lid], movement = core.contribute(params[lid], states[lid], acc.wagered)
        entries.append(
            ledger_entry(
                levels[lid],
                LedgerEntry.Kind.CONTRIBUTION,
                movement,
                states[lid],
                at=now,
                params=params[lid],
                batch=batch,
                event_count=acc.count,
                first_event_id=acc.first,
                last_event_id=acc.last,
                excluded_machine_ids=sorted(acc.excluded),
            )
        )
        touched.add(lid)
        pending[lid] = _Pending()

    def hit(lid: int, event: _Event, kind: str) -> None:
        flush(lid)
        recorded = award_record_locked(
            levels[lid],
            states[lid],
            at=event.at,
            kind=kind,
            machine_id=event.machine_id,
            event_id=event.id if kind == HitKind.MACHINE else None,
            machine_amount_cents=event.amount_cents if kind == HitKind.MACHINE else None,
        )
        states[lid] = recorded.state
        params[lid] = level_params(levels[lid])  # staged changes took effect at the reset
        entries.extend(recorded.entries)
        hits.extend(h.id for h in recorded.hits)
        touched.add(lid)

    for event in events:
        for progressive_id, live in members.get(event.machine_id, ()):
            for level in by_progressive.get(progressive_id, ()):
                lid = level.id
                if event.type == JACKPOT:
                    if event.level_id == lid and not params[lid].mystery:
                        hit(lid, event, HitKind.MACHINE)
                    continue
                if event.type != GAME or level.stopped:
                    continue
                if not core.eligible(params[lid], event.wager_cents or 0, event.is_max_bet):
                    continue
                if not live:
                    pending[lid].excluded.add(event.machine_id)
                    continue
                acc = pending[lid]
                crossing = params[lid].mystery and core.mystery_crossed(
                    params[lid], states[lid], acc.wagered + (event.wager_cents or 0)
                )
                acc.add(event)
                if crossing:
                    hit(lid, event, HitKind.MYSTERY)
    for lid in levels:
        flush(lid)
    for lid in sorted(touched):
        level = levels[lid]
        for name in STATE_FIELDS:
            setattr(level, name, getattr(states[lid], name))
        level.save(update_fields=STATE_FIELDS + PARAM_FIELDS)
    LedgerEntry.objects.bulk_create(entries)
    return touched, hits
