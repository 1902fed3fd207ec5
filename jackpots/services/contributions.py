"""Applying pending machine events to the levels, exactly once (DESIGN "Exactly-once").

One batch is one transaction: claim up to ``batch_size`` pending events (``FOR UPDATE SKIP LOCKED`` on
PostgreSQL, so workers never wait on each other's events) and mark them applied in the same statement,
lock the touched levels in primary-key order, sum the eligible wagers per level in Python, write ONE
ledger row per level (a hit inside the batch splits the level's sum at the hit) and ONE UPDATE for all the
touched levels, record the batch. A worker killed anywhere leaves nothing of its batch: the events stay
pending for the next one.
"""

from __future__ import annotations

import datetime as dt
import logging
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
    ledger_entry,
    level_params,
    level_state,
    levels_lock,
    levels_state_save,
)
from jackpots.services.machine_split import Part, contribution_parts, machine_parts_insert
from slots.models import MachineEvent, SlotMachine

logger = logging.getLogger(__name__)

# Called inside the batch's transaction just before it commits; tests use it to kill a worker mid-batch.
batch_hook: Callable[[], None] | None = None

GAME = MachineEvent.Type.GAME
JACKPOT = MachineEvent.Type.JACKPOT
# Enough batches per call to drain a burst; beat calls again every second anyway.
MAX_BATCHES_PER_CALL = 200

# The claim takes ids from the queue (slots.PendingEvent, SKIP LOCKED) and marks their events in the same
# statement. No index of the events table mentions ``pending``, so the mark is an in-place (HOT) update
# where the page has room. ``= ANY(ARRAY(...))`` makes the planner fetch the rows by primary key instead of
# hash-joining a sequential scan. ``AND e.pending`` drops a queued id whose event was cleared otherwise.
_CLAIM_SQL = """
WITH claimed AS (
    DELETE FROM slots_pendingevent WHERE event_id = ANY(ARRAY(
        SELECT event_id FROM slots_pendingevent ORDER BY event_id LIMIT %s FOR UPDATE SKIP LOCKED
    ))
    RETURNING event_id
)
UPDATE slots_machineevent e SET pending = false, applied_at = %s
WHERE e.id = ANY(ARRAY(SELECT event_id FROM claimed)) AND e.pending
RETURNING e.id, e.machine_id, e.type, e.wager_cents, e.is_max_bet, e.level_id, e.amount_cents
"""
_COLUMNS = ["id", "machine_id", "type", "wager_cents", "is_max_bet", "level_id", "amount_cents"]
# An event row, as claimed: (id, machine_id, type, wager_cents, is_max_bet, level_id, amount_cents).
Row = tuple[int, int, int, int | None, bool | None, int | None, int | None]


@dataclass(slots=True)
class _Pending:
    """Eligible wagers of one level not yet folded into its state."""

    wagered: int = 0
    count: int = 0
    first: int | None = None
    last: int | None = None
    excluded: set[int] = field(default_factory=set)
    by_machine: dict[int, int] = field(default_factory=dict)  # eligible wagered cents per machine


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


def _claim(size: int, at: dt.datetime) -> list[Row]:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_CLAIM_SQL, [size, at])
            rows = cursor.fetchall()
        rows.sort()
        return rows
    # SQLite: the transaction holds the database's write lock, there is nothing to skip.
    rows = list(MachineEvent.objects.filter(pending=True).order_by("id").values_list(*_COLUMNS)[:size])
    MachineEvent.objects.filter(id__in=[row[0] for row in rows]).update(pending=False, applied_at=at)
    return rows


def contributions_batch_apply(size: int) -> int:
    with transaction.atomic():
        batch = _batch_open()
        rows = _claim(size, batch.applied_at)
        if not rows:
            transaction.set_rollback(True)
            return 0
        touched, hits = _events_apply(rows, batch)
        ContributionBatch.objects.filter(pk=batch.pk).update(
            event_count=len(rows), first_event_id=rows[0][0], last_event_id=rows[-1][0]
        )
        if batch_hook is not None:
            batch_hook()
        if touched:
            level_ids = sorted(touched)
            transaction.on_commit(lambda: publish.levels_changed(level_ids))
        for hit_id in hits:
            transaction.on_commit(lambda hit_id=hit_id: publish.hit_announced(hit_id))
    return len(rows)


_MEMBERS_SQL = """
SELECT pm.machine_id, pm.progressive_id, pm.enabled, m.status
FROM jackpots_progressivemachine pm JOIN slots_slotmachine m ON m.id = pm.machine_id
WHERE pm.machine_id = ANY(%s)
"""

# What a machine feeds: (level id, minimum wager, max bet only, member live, mystery).
Feed = tuple[int, int, bool, bool, bool]


def _feeds(rows: list[Row]) -> tuple[dict[int, Level], dict[int, list[Feed]]]:
    """Locks every level the batch's machines feed (primary-key order) and lists each machine's feeds.

    A member that is disabled or whose machine is not in service is not live: it feeds nothing."""
    machine_ids = sorted({row[1] for row in rows})
    if connection.vendor == "postgresql":  # one array parameter instead of hundreds of placeholders
        with connection.cursor() as cursor:
            cursor.execute(_MEMBERS_SQL, [machine_ids])
            members = cursor.fetchall()
    else:
        members = list(
            ProgressiveMachine.objects.filter(machine_id__in=machine_ids).values_list(
                "machine_id", "progressive_id", "enabled", "machine__status"
            )
        )
    levels = levels_lock(
        Level.objects.filter(progressive_id__in={m[1] for m in members}).values_list("id", flat=True)
    )
    by_progressive: dict[int, list[Level]] = {}
    for level in levels.values():
        by_progressive.setdefault(level.progressive_id, []).append(level)
    feeds: dict[int, list[Feed]] = {}
    for machine_id, progressive_id, enabled, status in members:
        live = enabled and status == SlotMachine.Status.IN_SERVICE
        for level in by_progressive.get(progressive_id, ()):
            if not level.stopped:
                feed = (level.id, level.min_wager_cents, level.max_bet_only, live, level.mystery)
                feeds.setdefault(machine_id, []).append(feed)
    return levels, feeds


def _event_at(event_id: int) -> dt.datetime:
    return MachineEvent.objects.values_list("at", flat=True).get(pk=event_id)


def _events_apply(rows: list[Row], batch: ContributionBatch) -> tuple[set[int], list[int]]:
    levels, feeds = _feeds(rows)
    params = {lid: level_params(level) for lid, level in levels.items()}
    states = {lid: level_state(level) for lid, level in levels.items()}
    pending: dict[int, _Pending] = {lid: _Pending() for lid in levels}
    entries: list[LedgerEntry] = []
    split: list[tuple[LedgerEntry, dict[int, int]]] = []
    hits: list[int] = []
    touched: set[int] = set()
    now = batch.applied_at

    def flush(lid: int) -> None:
        acc = pending[lid]
        if acc.count == 0:
            return
        states[lid], movement = core.contribute(params[lid], states[lid], acc.wagered)
        entry = ledger_entry(
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
        entries.append(entry)
        split.append((entry, acc.by_machine))
        touched.add(lid)
        pending[lid] = _Pending()

    def hit(lid: int, row: Row, kind: str) -> None:
        flush(lid)
        machine_triggered = kind == HitKind.MACHINE
        recorded = award_record_locked(
            levels[lid],
            states[lid],
            at=_event_at(row[0]),
            kind=kind,
            machine_id=row[1],
            event_id=row[0] if machine_triggered else None,
            machine_amount_cents=row[6] if machine_triggered else None,
        )
        states[lid] = recorded.state
        params[lid] = level_params(levels[lid])  # staged changes took effect at the reset
        for feed_list in feeds.values():  # and so did a new minimum wager or max-bet rule
            for i, feed in enumerate(feed_list):
                if feed[0] == lid:
                    p = params[lid]
                    feed_list[i] = (lid, p.min_wager_cents, p.max_bet_only, feed[3], p.mystery)
        entries.extend(recorded.entries)
        hits.extend(h.id for h in recorded.hits)
        touched.add(lid)

    # The hot loop: plain tuples, no per-event objects; a level's wagers are summed until a hit splits them.
    for row in rows:
        event_id, machine_id, kind, wager, is_max_bet = row[:5]
        machine_feeds = feeds.get(machine_id, ())
        if kind == JACKPOT:
            # A disabled member or a machine out of service is out of the progressive (rule 5): no hit.
            named = [feed for feed in machine_feeds if feed[0] == row[5] and feed[3] and not feed[4]]
            if named:
                hit(row[5], row, HitKind.MACHINE)
            else:
                logger.warning(
                    "jackpot event %s of machine %s names level %s, which it cannot hit (not a member,"
                    " disabled, out of service, stopped or a mystery level): recorded, not paid",
                    event_id,
                    machine_id,
                    row[5],
                )
            continue
        if kind != GAME:
            continue
        for lid, min_wager, max_bet_only, live, mystery in machine_feeds:
            if wager < min_wager or (max_bet_only and not is_max_bet):
                continue
            acc = pending[lid]
            if not live:
                acc.excluded.add(machine_id)
                continue
            crossing = mystery and core.mystery_crossed(params[lid], states[lid], acc.wagered + wager)
            acc.wagered += wager
            acc.count += 1
            acc.by_machine[machine_id] = acc.by_machine.get(machine_id, 0) + wager
            if acc.first is None:
                acc.first = event_id
            acc.last = event_id
            if crossing:
                hit(lid, row, HitKind.MYSTERY)
    for lid in levels:
        flush(lid)
    levels_state_save([levels[lid] for lid in sorted(touched)], states)
    LedgerEntry.objects.bulk_create(entries)
    parts: list[tuple[LedgerEntry, list[Part]]] = [
        (entry, contribution_parts(entry, wagers)) for entry, wagers in split
    ]
    machine_parts_insert(parts)
    return touched, hits
