"""Claiming a contribution batch's events in the order of play (the module docstring of
``contributions`` tells the whole design): the batch row, the pick in the claim turn, the seat, the mark,
and the memberships and offline periods of the claimed events' machines.

A claimed event stays a plain tuple (``Row``) on its way through the batch's hot loop; ``Claimed`` names
its fields for the few that become a hit or a refusal.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone

from common.pg_arrays import array_literal
from jackpots.models import ContributionBatch, Level, ProgressiveMachine
from slots.models import MachineEvent
from slots.selectors import OfflineSpan, offline_spans

logger = logging.getLogger(__name__)

# PostgreSQL advisory lock keys: the claim turn (pick the events and take a seat, one worker at a time),
# the settling waiter (one worker at a time sleeps until the next events settle), and the class of the
# seats, (SEAT_CLASS, batch id) held from the pick until the batch's levels are locked.
CLAIM_TURN_KEY = 7_140_001
SETTLE_WAITER_KEY = 7_140_002
SEAT_CLASS = 7_140_003
_INT4 = 2_147_483_647  # advisory keys are int4: a batch id names its seat modulo this

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_MICROSECOND = dt.timedelta(microseconds=1)


class Claimed(NamedTuple):
    """A claimed event. ``at_us`` is its ``at`` in integer microseconds since the epoch: the claim reads
    it as an integer because parsing 5,000 timestamps a batch cost the engine a fifth of its time, and only
    a hit or a refusal needs it as a datetime (``at``)."""

    id: int
    machine_id: int
    type: int
    wager_cents: int | None
    is_max_bet: bool | None
    level_id: int | None
    amount_cents: int | None
    at_us: int
    seq: int

    @property
    def at(self) -> dt.datetime:
        return _EPOCH + dt.timedelta(microseconds=self.at_us)


Member = tuple[int, int, bool, str]  # machine, progressive, enabled, machine status
# A claimed event as the claim reads it: ``Claimed``'s fields in a plain tuple (the hot loop unpacks it; a
# hit or a refusal makes its ``Claimed``: building 5,000 named tuples a batch cost more than the loop).
Row = tuple[int, int, int, int | None, bool | None, int | None, int | None, int, int]
# What this module hands the driver as a query's parameters.
SqlValue = bool | int | str | dt.datetime | list[int] | None


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


# In the claim turn, one round trip: open the batch, pick, take the seat, then leave the turn (the driver
# sends the two statements as one query; they run one after the other, as two calls would).
# - The batch row: its ``applied_at`` is unique, so the events it marks name it; on a clash nothing is
#   inserted, nothing picked and no seat taken, and the caller takes the turn again for a later instant.
# - The pick: the settled queue rows earliest in play order (slots.PendingEvent, indexed on
#   (at, machine_id, seq)), locked; SKIP LOCKED passes over those another batch picked. The queue's trigger
#   inserts each statement's rows in that order, so the walk reads the queue's pages in sequence.
# - The seat, if it picked anything: this batch's, and the seats of the batches that picked before it and
#   have not locked their levels yet (the only exclusive locks of the class: waiters hold theirs shared), in
#   this database (advisory locks are per database; the server may hold other installations' engines).
_PICK_SQL = """
WITH batch AS (
    INSERT INTO jackpots_contributionbatch (applied_at, event_count) VALUES (%(at)s, 0)
    ON CONFLICT (applied_at) DO NOTHING RETURNING id
), picked AS (
    SELECT batch.id, ARRAY(
        SELECT event_id FROM slots_pendingevent WHERE at <= %(settled)s
        ORDER BY at, machine_id, seq LIMIT %(size)s FOR UPDATE SKIP LOCKED
    ) AS ids
    FROM batch
)
SELECT id, ids,
    CASE WHEN cardinality(ids) > 0 THEN pg_advisory_lock(%(class)s, (id %% %(int4)s)::int) END,
    CASE WHEN cardinality(ids) > 0 THEN ARRAY(
        SELECT objid::bigint FROM pg_locks
        WHERE locktype = 'advisory' AND classid = %(class)s AND objsubid = 2 AND mode = 'ExclusiveLock'
            AND granted AND pid <> pg_backend_pid()
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
    ) END
FROM picked;
SELECT pg_advisory_unlock(%(turn)s)
"""
# The mark, outside the turn: the picked rows leave the queue and their events are marked in the same
# statement. No index of the events table mentions ``pending``, so the mark is an in-place (HOT) update
# where the page has room. ``AND e.pending`` drops a queued id whose event was cleared otherwise. ``at``
# leaves as integer microseconds (see ``Claimed``). The rows come back in the events table's order: ``_mark``
# puts them back in the pick's, the order of play, cheaper than a sort here. The ids reach the DELETE through
# a subquery, so the planner, not knowing how many, looks each up in the queue's primary key: given the
# count it scans the whole queue once it holds tens of thousands (a burst), 2 ms more per 5,000-event batch.
_MARK_SQL = """
WITH dequeued AS (
    DELETE FROM slots_pendingevent WHERE event_id = ANY(ARRAY(SELECT unnest(%(ids)s::bigint[])))
    RETURNING event_id
), marked AS (
    UPDATE slots_machineevent e SET pending = false, applied_at = %(at)s
    WHERE e.id = ANY(ARRAY(SELECT event_id FROM dequeued)) AND e.pending
    RETURNING e.id, e.machine_id, e.type, e.wager_cents, e.is_max_bet, e.level_id, e.amount_cents,
        (extract(epoch FROM e.at) * 1000000)::bigint, e.seq
), recorded AS (
    UPDATE jackpots_contributionbatch SET (event_count, first_event_id, last_event_id) = (
        SELECT count(*), min(id), max(id) FROM marked
    ) WHERE id = %(batch)s
)
SELECT * FROM marked
"""
_COLUMNS = ["id", "machine_id", "type", "wager_cents", "is_max_bet", "level_id", "amount_cents", "at", "seq"]


def _sql(sql: str, params: Sequence[SqlValue] | Mapping[str, SqlValue]) -> list[tuple[Any, ...]]:
    """The rows of one statement; their columns are of the types the statement selects."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows: list[tuple[Any, ...]] = cursor.fetchall()
        return rows


def advisory_call(function: str, key: int) -> bool:
    return bool(_sql(f"SELECT {function}(%s)", [key])[0][0])


@dataclass(slots=True)
class _Seat:
    """A PostgreSQL batch's place in the pick order, from its pick until its levels are locked."""

    key: int
    before: list[int]  # seats of the batches that picked earlier and were not seated yet
    held: bool = True

    def leave(self) -> None:
        if self.held:
            self.held = False
            _sql("SELECT pg_advisory_unlock(%s, %s)", [SEAT_CLASS, self.key])


def _pick(size: int) -> tuple[ContributionBatch, list[int], _Seat | None]:
    """In the claim turn, so batch ids follow the pick order: the batch, the ids of the events it applies,
    and its seat (None if no event). The turn is a session advisory lock, so it outlives a rollback and a
    lost connection takes it along."""
    at: dt.datetime | None = None
    for _ in range(20):
        advisory_call("pg_advisory_lock", CLAIM_TURN_KEY)
        # a clash: the next microsecond, unless the clock has passed it (batches stamp in pick order)
        at = timezone.now() if at is None else max(timezone.now(), at + _MICROSECOND)
        params: dict[str, SqlValue] = {
            "turn": CLAIM_TURN_KEY,
            "at": at,
            "settled": settled_before(at),
            "size": size,
        }
        try:
            with connection.cursor() as cursor:
                cursor.execute(_PICK_SQL, {**params, "class": SEAT_CLASS, "int4": _INT4})
                row = cursor.fetchone()
        except BaseException:
            _turn_leave()
            raise
        if row is not None:
            batch_id, ids, _, before = row
            # the row as the INSERT made it, built as Django builds a fetched one (no second query)
            fields = ["id", "applied_at", "event_count", "first_event_id", "last_event_id"]
            batch = ContributionBatch.from_db(connection.alias, fields, [batch_id, at, 0, None, None])
            return batch, ids, (_Seat(batch_id % _INT4, before) if ids else None)
    raise RuntimeError("could not stamp a contribution batch")


def _turn_leave() -> None:
    """After a failed pick: the claim turn is left unless the session went, and its lock with it."""
    try:
        advisory_call("pg_advisory_unlock", CLAIM_TURN_KEY)
    except DatabaseError:
        logger.warning("the engine's claim turn went with its database session")


def _mark(ids: list[int], batch: ContributionBatch) -> list[Row]:
    """Dequeues and marks the picked events and records their count and id range on the batch; returns
    those still pending, in the order of ``ids``.

    The ids travel as one array literal: the driver's list adapter takes 2 ms to write 5,000 of them, a join
    0.4 ms."""
    rows = _sql(_MARK_SQL, {"ids": array_literal(ids), "at": batch.applied_at, "batch": batch.pk})
    marked = {row[0]: row for row in rows}
    return [marked[event_id] for event_id in ids if event_id in marked]


def _claim_sqlite(size: int, batch: ContributionBatch) -> list[Row]:
    """SQLite: the transaction holds the database's write lock, there is nothing to skip or to seat."""
    at = batch.applied_at
    pending = MachineEvent.objects.filter(pending=True, at__lte=settled_before(at))
    rows = list(pending.order_by("at", "machine_id", "seq").values_list(*_COLUMNS)[:size])
    ids = [row[0] for row in rows]
    MachineEvent.objects.filter(id__in=ids).update(pending=False, applied_at=at)
    if ids:
        ContributionBatch.objects.filter(pk=batch.pk).update(
            event_count=len(ids), first_event_id=min(ids), last_event_id=max(ids)
        )
    # ``at`` as integer microseconds, as PostgreSQL's claim gives it
    return [(*row[:7], (row[7] - _EPOCH) // _MICROSECOND, row[8]) for row in rows]


@dataclass(slots=True)
class Claim:
    """A batch's events in play order, its machines' memberships, their progressives' levels, and
    (PostgreSQL) its seat."""

    events: list[Row]
    members: list[Member]
    level_ids: list[int]
    seat: _Seat | None = None
    offline: dict[int, list[OfflineSpan]] = field(default_factory=dict)

    def seat_leave(self) -> None:
        if self.seat is None:
            return
        try:
            self.seat.leave()
        except DatabaseError:  # the session is gone, and its lock with it
            logger.warning("the engine's seat went with its database session")


def events_claim(size: int) -> tuple[ContributionBatch, Claim | None]:
    """Opens a batch and claims its events; on PostgreSQL returns once every batch that picked earlier has
    locked its levels, holding its seat until it has locked its own (see ``contributions``' docstring).
    None: no event to apply."""
    if connection.vendor != "postgresql":
        batch = _batch_open()
        events = _claim_sqlite(size, batch)
        if not events:
            return batch, None
        machine_ids = sorted({event[1] for event in events})
        members = _members_sqlite(machine_ids)
        progressives = {member[1] for member in members}
        levels = Level.objects.filter(progressive_id__in=progressives).values_list("id", flat=True)
        return batch, Claim(events, members, list(levels), offline=offline_spans(machine_ids, events[0][7]))
    batch, ids, seat = _pick(size)
    if seat is None:
        return batch, None
    claim = Claim([], [], [], seat)
    try:
        claim.events = _mark(ids, batch)
        if not claim.events:  # only ids whose events were cleared otherwise
            claim.seat_leave()
            return batch, None
        machine_ids = sorted({event[1] for event in claim.events})
        claim.members, claim.offline, claim.level_ids = _members_seated(machine_ids, claim.events[0][7], seat)
    except BaseException:
        claim.seat_leave()
        raise
    return batch, claim


# After the mark, one round trip: the memberships of the batch's machines (one array parameter instead of
# hundreds of placeholders), their offline periods not over before the batch's first event (as
# ``slots.selectors.offline_spans`` reads them), the wait for the batches that picked earlier to lock their
# levels, then the ids of the levels of those machines' progressives.
_MEMBERS_SEATED_SQL = """
SELECT pm.machine_id, pm.progressive_id, pm.enabled, m.status
FROM jackpots_progressivemachine pm JOIN slots_slotmachine m ON m.id = pm.machine_id
WHERE pm.machine_id = ANY(%(machines)s);
SELECT machine_id, (extract(epoch FROM started_at) * 1000000)::bigint,
    (extract(epoch FROM ended_at) * 1000000)::bigint
FROM slots_offlineperiod WHERE machine_id = ANY(%(machines)s)
    AND (ended_at IS NULL OR ended_at > to_timestamp(%(since)s / 1000000.0));
SELECT pg_advisory_xact_lock_shared(%(class)s, seat::int) FROM unnest(%(before)s::bigint[]) AS seat;
SELECT id FROM jackpots_level WHERE progressive_id IN (
    SELECT progressive_id FROM jackpots_progressivemachine WHERE machine_id = ANY(%(machines)s)
)
"""


def _members_seated(
    machine_ids: list[int], since_us: int, seat: _Seat
) -> tuple[list[Member], dict[int, list[OfflineSpan]], list[int]]:
    """(machine, progressive, enabled, machine status) of every membership of ``machine_ids``, their
    offline periods from ``since_us`` on, and the ids of their progressives' levels; returns once every
    batch that picked earlier has locked its levels (or is gone)."""
    params: dict[str, SqlValue] = {
        "machines": machine_ids,
        "since": since_us,
        "class": SEAT_CLASS,
        "before": seat.before,
    }
    with connection.cursor() as cursor:
        cursor.execute(_MEMBERS_SEATED_SQL, params)
        members = cursor.fetchall()
        cursor.nextset()
        offline: dict[int, list[OfflineSpan]] = {}
        for machine_id, start, end in cursor.fetchall():
            offline.setdefault(machine_id, []).append((start, end))
        cursor.nextset()
        cursor.nextset()
        return members, offline, [row[0] for row in cursor.fetchall()]


def _members_sqlite(machine_ids: list[int]) -> list[Member]:
    """(machine, progressive, enabled, machine status) of every membership of ``machine_ids``."""
    memberships = ProgressiveMachine.objects.filter(machine_id__in=machine_ids)
    return list(memberships.values_list("machine_id", "progressive_id", "enabled", "machine__status"))
