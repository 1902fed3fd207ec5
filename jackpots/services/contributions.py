"""Applying pending machine events to the levels, exactly once (DESIGN "Exactly-once"), in the order of play.

One batch is one transaction: claim up to ``batch_size`` pending events (``FOR UPDATE SKIP LOCKED`` on
PostgreSQL) and mark them applied in the same statement, lock the touched levels in primary-key order, sum
the eligible wagers per level in Python, write ONE ledger row per level (a hit inside the batch splits the
level's sum at the hit) and ONE UPDATE for all the touched levels, record the batch. A worker killed
anywhere leaves nothing of its batch: the events stay pending for the next one.

The order of play (DESIGN "Order of play"). An event's place is (``at``, machine id, seq): the time the
machine gives, then the machine, then its seq. Hits are numbered, and amounts assigned, in that order,
whichever request, worker or commit carried the events:
- a batch claims the pending events earliest in play order (the queue keeps each event's place, indexed)
  among those whose ``at`` is at least ENGINE_SETTLE_MILLISECONDS old, and applies them in play order;
- batches take turns: a worker claims and locks its levels while holding the claim turn (a PostgreSQL
  advisory lock), so on every level the batches apply in the order they claimed (batch id order), and a
  batch claims nothing played before what an earlier batch claimed, unless it arrived after that claim;
- so events posted within the settle window of their ``at`` apply exactly as a replay in play order would.
  An event that reaches the engine later than that, after a batch that applied a later place to its level,
  is **late**: it is applied in the next batch, at its place in that batch (first, in practice), so it
  counts towards the level as it stands then; a late jackpot or mystery hit is numbered after the hits
  played after it and recorded with ``late`` set. In short, the engine's order is (batch, place in play);
  the audit and the tests' model replay exactly that.
- ``contributions_apply_settling`` (the task) waits for events still inside the window, one worker at a
  time, so a game reaches the signs about ENGINE_SETTLE_MILLISECONDS after it was played.
A machine's jackpot report is a hit only if its triggering game was eligible (see ``hits``); otherwise it
is refused on record, with an alert for the floor.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone

from jackpots import publish
from jackpots.models import ContributionBatch, HitKind, HitRefusal, LedgerEntry, Level, ProgressiveMachine
from jackpots.services import core
from jackpots.services.hits import Play, award_record_locked, hit_refusals_record, machine_report_refusal
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

# The claim takes the settled ids earliest in play order from the queue (slots.PendingEvent, its index on
# (at, machine_id, seq); SKIP LOCKED passes over a batch still committing) and marks their events in the
# same statement. No index of the events table mentions ``pending``, so the mark is an in-place (HOT)
# update where the page has room. ``= ANY(ARRAY(...))`` makes the planner fetch the rows by primary key
# instead of hash-joining a sequential scan. ``AND e.pending`` drops a queued id whose event was cleared.
_CLAIM_SQL = """
WITH claimed AS (
    DELETE FROM slots_pendingevent WHERE event_id = ANY(ARRAY(
        SELECT event_id FROM slots_pendingevent WHERE at <= %s
        ORDER BY at, machine_id, seq LIMIT %s FOR UPDATE SKIP LOCKED
    ))
    RETURNING event_id
)
UPDATE slots_machineevent e SET pending = false, applied_at = %s
WHERE e.id = ANY(ARRAY(SELECT event_id FROM claimed)) AND e.pending
RETURNING e.id, e.machine_id, e.type, e.wager_cents, e.is_max_bet, e.level_id, e.amount_cents, e.at, e.seq
"""
_COLUMNS = ["id", "machine_id", "type", "wager_cents", "is_max_bet", "level_id", "amount_cents", "at", "seq"]
# An event row, as claimed: (id, machine_id, type, wager_cents, is_max_bet, level_id, amount_cents, at, seq).
Row = tuple[int, int, int, int | None, bool | None, int | None, int | None, dt.datetime, int]

# PostgreSQL advisory lock keys: the claim turn (claim and lock the levels, one worker at a time) and the
# settling waiter (one worker at a time sleeps until the next events settle).
CLAIM_TURN_KEY = 7_140_001
SETTLE_WAITER_KEY = 7_140_002


def play_order(row: Row) -> tuple[dt.datetime, int, int]:
    """An event's place in the order of play: its time, then its machine, then its seq."""
    return row[7], row[1], row[8]


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


_NEXT_UNSETTLED_SQL = "SELECT min(at) FROM slots_pendingevent WHERE at > %s"


def _next_settle_in(now: dt.datetime) -> float | None:
    """Seconds until the earliest pending event still inside its settle window leaves it; None if none."""
    with connection.cursor() as cursor:
        cursor.execute(_NEXT_UNSETTLED_SQL, [settled_before(now)])
        (earliest,) = cursor.fetchone()
    if earliest is None:
        return None
    return (earliest - settled_before(now)).total_seconds()


def contributions_apply_settling(max_seconds: float = 1.0) -> int:
    """``contributions_apply``, then, on PostgreSQL, while events wait inside their settle window: sleeps
    until the earliest leaves it and applies again, for at most ``max_seconds`` (beat calls every second).
    One worker waits at a time (the others return at once), so ingest's many calls do not pile up asleep.
    Without it a game would wait for beat's next run, up to a second, before reaching the signs."""
    total = contributions_apply()
    # Eager (no worker): the caller is a request, which must not sleep; beat's next run applies the rest.
    waits = settings.ENGINE_SETTLE_MILLISECONDS and not settings.CELERY_TASK_ALWAYS_EAGER
    if connection.vendor != "postgresql" or not waits:
        return total
    if not _advisory("pg_try_advisory_lock", SETTLE_WAITER_KEY):
        return total
    try:
        deadline = time.monotonic() + max_seconds
        while True:
            wait = _next_settle_in(timezone.now())
            if wait is None or time.monotonic() + wait > deadline:
                return total
            time.sleep(max(wait, 0.001))
            total += contributions_apply()
    finally:
        _advisory("pg_advisory_unlock", SETTLE_WAITER_KEY)


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


def settled_before(now: dt.datetime) -> dt.datetime:
    """Events whose ``at`` is at or before this instant have had their settle window."""
    return now - dt.timedelta(milliseconds=settings.ENGINE_SETTLE_MILLISECONDS)


def _claim(size: int, at: dt.datetime) -> list[Row]:
    cutoff = settled_before(at)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_CLAIM_SQL, [cutoff, size, at])
            rows = cursor.fetchall()
    else:
        # SQLite: the transaction holds the database's write lock, there is nothing to skip.
        pending = MachineEvent.objects.filter(pending=True, at__lte=cutoff).order_by(
            "at", "machine_id", "seq"
        )
        rows = list(pending.values_list(*_COLUMNS)[:size])
        MachineEvent.objects.filter(id__in=[row[0] for row in rows]).update(pending=False, applied_at=at)
    rows.sort(key=play_order)
    return rows


def _advisory(function: str, key: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {function}(%s)", [key])
        return bool(cursor.fetchone()[0])


@contextmanager
def _claim_turn() -> Iterator[Callable[[], None]]:
    """Holds the claim turn until the returned function is called (once the batch's levels are locked) or
    the block ends. On PostgreSQL a session advisory lock: released mid-transaction, and after a rollback
    if the batch failed; a lost connection takes it along. SQLite serialises whole transactions anyway."""
    if connection.vendor != "postgresql":
        yield lambda: None
        return
    _advisory("pg_advisory_lock", CLAIM_TURN_KEY)
    held = [True]

    def release() -> None:
        if held[0]:
            held[0] = False
            _advisory("pg_advisory_unlock", CLAIM_TURN_KEY)

    try:
        yield release
    finally:
        try:
            release()
        except DatabaseError:  # the session is gone, and its lock with it
            logger.warning("the engine's claim turn went with its database session")


def contributions_batch_apply(size: int) -> int:
    with _claim_turn() as turn_release, transaction.atomic():
        batch = _batch_open()
        rows = _claim(size, batch.applied_at)
        if not rows:
            transaction.set_rollback(True)
            return 0
        levels, feeds = _feeds(rows)
        turn_release()
        touched, hits = _events_apply(rows, batch, levels, feeds)
        ids = [row[0] for row in rows]
        ContributionBatch.objects.filter(pk=batch.pk).update(
            event_count=len(rows), first_event_id=min(ids), last_event_id=max(ids)
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


def _events_apply(
    rows: list[Row], batch: ContributionBatch, levels: dict[int, Level], feeds: dict[int, list[Feed]]
) -> tuple[set[int], list[int]]:
    """Applies ``rows`` (in play order) to the locked ``levels``."""
    params = {lid: level_params(level) for lid, level in levels.items()}
    states = {lid: level_state(level) for lid, level in levels.items()}
    pending: dict[int, _Pending] = {lid: _Pending() for lid in levels}
    entries: list[LedgerEntry] = []
    split: list[tuple[LedgerEntry, dict[int, int]]] = []
    hits: list[int] = []
    refusals: list[HitRefusal] = []
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
            at=row[7],
            kind=kind,
            machine_id=row[1],
            event_id=row[0] if machine_triggered else None,
            machine_amount_cents=row[6] if machine_triggered else None,
            play=Play(row[7], row[1], row[8]),
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
            lid = row[5]
            refused = machine_report_refusal(
                levels.get(lid), params.get(lid), machine_id=machine_id, seq=row[8]
            )
            if refused is None:
                hit(lid, row, HitKind.MACHINE)
            else:
                # Levels are never deleted (ledger rows protect them) and the ingest checked this one.
                code, game_id = refused
                refusals.append(
                    HitRefusal(
                        level_id=lid,
                        machine_id=machine_id,
                        event_id=event_id,
                        game_event_id=game_id,
                        code=code,
                        at=row[7],
                        batch=batch,
                    )
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
    hit_refusals_record(refusals, now=now)
    parts: list[tuple[LedgerEntry, list[Part]]] = [
        (entry, contribution_parts(entry, wagers)) for entry, wagers in split
    ]
    machine_parts_insert(parts)
    return touched, hits
