"""Applying pending machine events to the levels, exactly once (docs/design.md "Exactly-once"), in the order
of play.

One batch is one transaction: claim up to ``batch_size`` pending events (``FOR UPDATE SKIP LOCKED`` on
PostgreSQL) and mark them applied, lock the touched levels in primary-key order, sum the eligible wagers
per level in Python, write ONE ledger row per level (a hit inside the batch splits the level's sum at the
hit) and ONE UPDATE for all the touched levels, record the batch. A worker killed anywhere leaves nothing
of its batch: the events stay pending for the next one.

The order of play (docs/design.md "Order of play"). An event's place is (``at``, machine id, seq): the time
the machine gives, then the machine, then its seq. Hits are numbered, and amounts assigned, in that order,
whichever request, worker or commit carried the events:
- a batch claims the pending events earliest in play order (the queue keeps each event's place, indexed)
  among those whose ``at`` is at least ENGINE_SETTLE_MILLISECONDS old, and applies them in play order;
- batches take turns to pick their events, and are seated on their levels in the order they picked: on
  PostgreSQL a worker holds the claim turn (an advisory lock) only while it locks its queue rows and takes
  its seat (a second advisory lock, named by its batch); it then marks its events and, once every batch
  that picked before it has locked its levels, locks its own and leaves its seat. So the expensive part of
  the claim runs in parallel, while on every level the batches apply in the order they picked (batch id
  order), and a batch picks nothing played before what an earlier batch picked, unless it arrived after;
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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone

from jackpots.models import (
    ContributionBatch,
    Hit,
    HitKind,
    HitRefusal,
    LedgerEntry,
    Level,
    ProgressiveMachine,
)
from jackpots.services import core
from jackpots.services.hits import (
    Play,
    award_record_locked,
    hit_refusals_record,
    jackpot_report_payer,
    machine_report_refusal,
)
from jackpots.services.level_write import Locked, Written, levels_write
from jackpots.services.levels import ledger_entry, level_params
from jackpots.services.machine_split import Part, contribution_parts, machine_parts_insert
from slots.models import MachineEvent, SlotMachine
from slots.selectors import OfflineSpan, offline_at, offline_spans

logger = logging.getLogger(__name__)

GAME = MachineEvent.Type.GAME
JACKPOT = MachineEvent.Type.JACKPOT
# Enough batches per call to drain a burst; beat calls again every second anyway.
MAX_BATCHES_PER_CALL = 200

# Called inside a batch's transaction just before it commits (the tests stop a worker there).
BeforeCommit = Callable[[], None]

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


class Feed(NamedTuple):
    """What a machine feeds: a level, the wagers it takes, whether the machine is live, mystery or not."""

    level_id: int
    min_wager_cents: int
    max_bet_only: bool
    live: bool
    mystery: bool


def contributions_apply(batch_size: int | None = None, before_commit: BeforeCommit | None = None) -> int:
    """Applies pending events batch by batch until none is left. Returns the number of events applied."""
    size = batch_size or settings.CONTRIBUTIONS_BATCH_SIZE
    total = 0
    for _ in range(MAX_BATCHES_PER_CALL):
        applied = contributions_batch_apply(size, before_commit)
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


def _sql(sql: str, params: list | dict) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _advisory(function: str, key: int) -> bool:
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
        _advisory("pg_advisory_lock", CLAIM_TURN_KEY)
        # a clash: the next microsecond, unless the clock has passed it (batches stamp in pick order)
        at = timezone.now() if at is None else max(timezone.now(), at + _MICROSECOND)
        params = {"turn": CLAIM_TURN_KEY, "at": at, "settled": settled_before(at), "size": size}
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
        _advisory("pg_advisory_unlock", CLAIM_TURN_KEY)
    except DatabaseError:
        logger.warning("the engine's claim turn went with its database session")


def _mark(ids: list[int], batch: ContributionBatch) -> list[Row]:
    """Dequeues and marks the picked events and records their count and id range on the batch; returns
    those still pending, in the order of ``ids``.

    The ids travel as one array literal: the driver's list adapter takes 2 ms to write 5,000 of them, a join
    0.4 ms."""
    literal = "{" + ",".join(map(str, ids)) + "}"
    rows = _sql(_MARK_SQL, {"ids": literal, "at": batch.applied_at, "batch": batch.pk})
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
class _Claim:
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


def _claim(size: int) -> tuple[ContributionBatch, _Claim | None]:
    """Opens a batch and claims its events; on PostgreSQL returns once every batch that picked earlier has
    locked its levels, holding its seat until it has locked its own (see the module docstring). None: no
    event to apply."""
    if connection.vendor != "postgresql":
        batch = _batch_open()
        events = _claim_sqlite(size, batch)
        if not events:
            return batch, None
        machine_ids = sorted({event[1] for event in events})
        members = _members_sqlite(machine_ids)
        progressives = {member[1] for member in members}
        levels = Level.objects.filter(progressive_id__in=progressives).values_list("id", flat=True)
        return batch, _Claim(events, members, list(levels), offline=offline_spans(machine_ids, events[0][7]))
    batch, ids, seat = _pick(size)
    if seat is None:
        return batch, None
    claim = _Claim([], [], [], seat)
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


def contributions_batch_apply(size: int, before_commit: BeforeCommit | None = None) -> int:
    with transaction.atomic():
        batch, claim = _claim(size)
        if claim is None:
            transaction.set_rollback(True)
            return 0
        try:
            written = levels_write(claim.level_ids, lambda locked: _BatchApply(batch, locked, claim).run())
        finally:
            claim.seat_leave()
        written.result.write()
        if before_commit is not None:
            before_commit()
    return len(claim.events)


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
    params = {"machines": machine_ids, "since": since_us, "class": SEAT_CLASS, "before": seat.before}
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


def _feeds(members: list[Member], levels: dict[int, Level]) -> dict[int, list[Feed]]:
    """What each of the batch's machines feeds, among its locked ``levels``.

    A member that is disabled or whose machine is not in service is not live: it feeds nothing."""
    by_progressive: dict[int, list[Level]] = {}
    for level in levels.values():
        by_progressive.setdefault(level.progressive_id, []).append(level)
    feeds: dict[int, list[Feed]] = {}
    for machine_id, progressive_id, enabled, status in members:
        live = enabled and status == SlotMachine.Status.IN_SERVICE
        for level in by_progressive.get(progressive_id, ()):
            if level.active:
                feed = Feed(level.id, level.min_wager_cents, level.max_bet_only, live, level.mystery)
                feeds.setdefault(machine_id, []).append(feed)
    return feeds


@dataclass(slots=True)
class _Pending:
    """Eligible wagers of one level not yet folded into its state."""

    wagered: int = 0
    count: int = 0
    first: int | None = None
    last: int | None = None
    excluded: set[int] = field(default_factory=set)
    by_machine: dict[int, int] = field(default_factory=dict)  # eligible wagered cents per machine


class _BatchApply:
    """Applies a batch's events (in play order) to its locked levels (the step of ``levels_write``); what
    the level write does not store (refusals, the machines' shares) it stores in ``write``."""

    def __init__(self, batch: ContributionBatch, locked: Locked, claim: _Claim) -> None:
        claim.seat_leave()  # the levels are locked: the next batch may lock its own
        self.batch = batch
        self.events = claim.events
        self.levels = locked.levels
        self.feeds = _feeds(claim.members, locked.levels)
        self.params = {lid: locked.params(lid) for lid in self.levels}
        self.states = {lid: locked.state(lid) for lid in self.levels}
        self.pending: dict[int, _Pending] = {lid: _Pending() for lid in self.levels}
        self.entries: list[LedgerEntry] = []
        self.split: list[tuple[LedgerEntry, dict[int, int]]] = []
        self.hits: list[Hit] = []
        self.refusals: list[HitRefusal] = []
        self.touched: set[int] = set()
        # Offline means out of play: a game dated inside a period its machine was marked offline counts
        # towards no level, and a jackpot report dated inside one is refused (``machine_offline``).
        self.offline = claim.offline

    def run(self) -> Written[_BatchApply]:
        """The hot loop: no per-event objects; a level's wagers are summed until a hit splits them."""
        feeds, pending, params, states, offline = (
            self.feeds,
            self.pending,
            self.params,
            self.states,
            self.offline,
        )
        for event in self.events:
            event_id, machine_id, kind, wager, is_max_bet, _, _, at_us, _ = event
            if kind == JACKPOT:
                self._jackpot(Claimed._make(event))
                continue
            if kind != GAME or (offline and machine_id in offline and offline_at(offline[machine_id], at_us)):
                continue
            # hits replace a level's feeds in these lists, so the loop sees a reset's new rules at once
            for lid, min_wager, max_bet_only, live, mystery in feeds.get(machine_id, ()):
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
                    self._hit(lid, Claimed._make(event), HitKind.MYSTERY)
        for lid in self.levels:
            self._flush(lid)
        touched = {lid: states[lid] for lid in self.touched}
        return Written(touched, self.entries, self.hits, result=self)

    def _flush(self, lid: int) -> None:
        """Folds a level's pending wagers into its state: one contribution ledger row."""
        acc = self.pending[lid]
        if acc.count == 0:
            return
        self.states[lid], movement = core.contribute(self.params[lid], self.states[lid], acc.wagered)
        entry = ledger_entry(
            self.levels[lid],
            LedgerEntry.Kind.CONTRIBUTION,
            movement,
            self.states[lid],
            at=self.batch.applied_at,
            params=self.params[lid],
            batch=self.batch,
            event_count=acc.count,
            first_event_id=acc.first,
            last_event_id=acc.last,
            excluded_machine_ids=sorted(acc.excluded),
        )
        self.entries.append(entry)
        self.split.append((entry, acc.by_machine))
        self.touched.add(lid)
        self.pending[lid] = _Pending()

    def _jackpot(self, event: Claimed) -> None:
        """A machine's report: a hit, or refused on record (levels are never deleted: ledger rows protect
        them, and the ingest checked this one)."""
        lid = event.level_id
        refused = machine_report_refusal(
            self.levels.get(lid), self.params.get(lid), machine_id=event.machine_id, seq=event.seq
        )
        if refused is None and offline_at(self.offline.get(event.machine_id, []), event.at_us):
            refused = HitRefusal.Code.MACHINE_OFFLINE, None
        if refused is None:
            self._hit(lid, event, HitKind.MACHINE)
            return
        code, game_id = refused
        self.refusals.append(
            HitRefusal(
                level_id=lid,
                machine_id=event.machine_id,
                event_id=event.id,
                game_event_id=game_id,
                code=code,
                at=event.at,
                batch=self.batch,
            )
        )

    def _hit(self, lid: int, event: Claimed, kind: str) -> None:
        self._flush(lid)
        machine_triggered = kind == HitKind.MACHINE
        reported_paid, machine_paid = jackpot_report_payer(event.id) if machine_triggered else ("", None)
        at = event.at
        recorded = award_record_locked(
            self.levels[lid],
            self.states[lid],
            at=at,
            kind=kind,
            machine_id=event.machine_id,
            event_id=event.id if machine_triggered else None,
            machine_amount_cents=event.amount_cents if machine_triggered else None,
            machine_paid_cents=machine_paid,
            reported_paid=reported_paid,
            play=Play(at, event.machine_id, event.seq),
        )
        self.states[lid] = recorded.state
        self.params[lid] = level_params(self.levels[lid])  # staged changes took effect at the reset
        self._feeds_renew(lid)
        self.entries.extend(recorded.entries)
        self.hits.extend(recorded.hits)
        self.touched.add(lid)

    def _feeds_renew(self, lid: int) -> None:
        """A reset may have brought a new minimum wager or max-bet rule: the level's feeds take it."""
        p = self.params[lid]
        for feed_list in self.feeds.values():
            for i, feed in enumerate(feed_list):
                if feed.level_id == lid:
                    feed_list[i] = feed._replace(
                        min_wager_cents=p.min_wager_cents, max_bet_only=p.max_bet_only, mystery=p.mystery
                    )

    def write(self) -> None:
        """After the level write (the ledger rows have their ids): the refusals and the machines' shares."""
        hit_refusals_record(self.refusals, now=self.batch.applied_at)
        parts: list[tuple[LedgerEntry, list[Part]]] = [
            (entry, contribution_parts(entry, wagers)) for entry, wagers in self.split
        ]
        machine_parts_insert(parts)
