"""Applying pending machine events to the levels, exactly once (DESIGN "Exactly-once"), in the order of play.

One batch is one transaction: claim up to ``batch_size`` pending events (``FOR UPDATE SKIP LOCKED`` on
PostgreSQL) and mark them applied, lock the touched levels in primary-key order, sum the eligible wagers
per level in Python, write ONE ledger row per level (a hit inside the batch splits the level's sum at the
hit) and ONE UPDATE for all the touched levels, record the batch. A worker killed anywhere leaves nothing
of its batch: the events stay pending for the next one.

The order of play (DESIGN "Order of play"). An event's place is (``at``, machine id, seq): the time the
machine gives, then the machine, then its seq. Hits are numbered, and amounts assigned, in that order,
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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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
from jackpots.services.hits import Play, award_record_locked, hit_refusals_record, machine_report_refusal
from jackpots.services.level_write import Locked, Written, levels_write
from jackpots.services.levels import ledger_entry, level_params
from jackpots.services.machine_split import Part, contribution_parts, machine_parts_insert
from slots.models import MachineEvent, SlotMachine

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


# The pick, in the claim turn: the settled queue rows earliest in play order (slots.PendingEvent, indexed on
# (at, machine_id, seq)), locked; SKIP LOCKED passes over those another batch picked. The queue's trigger
# inserts each statement's rows in that order, so the walk reads the queue's pages in sequence.
_PICK_SQL = """
SELECT event_id FROM slots_pendingevent WHERE at <= %s
ORDER BY at, machine_id, seq LIMIT %s FOR UPDATE SKIP LOCKED
"""
# The seat, in the claim turn: this batch's, and the seats of the batches that picked before it and have not
# locked their levels yet (the only exclusive locks of the class: waiters hold theirs shared), in this
# database (advisory locks are per database; the server may hold other installations' engines).
_SEAT_SQL = """
SELECT pg_advisory_lock(%(class)s, %(seat)s), ARRAY(
    SELECT objid::bigint FROM pg_locks
    WHERE locktype = 'advisory' AND classid = %(class)s AND objsubid = 2 AND mode = 'ExclusiveLock'
        AND granted AND pid <> pg_backend_pid()
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
)
"""
_SEATS_WAIT_SQL = "SELECT pg_advisory_xact_lock_shared(%s, seat::int) FROM unnest(%s::bigint[]) AS seat"
# The mark, outside the turn: the picked rows leave the queue and their events are marked in the same
# statement. No index of the events table mentions ``pending``, so the mark is an in-place (HOT) update
# where the page has room. ``AND e.pending`` drops a queued id whose event was cleared otherwise. ``at``
# leaves as integer microseconds (see ``Claimed``). The rows come back in the events table's order: ``_mark``
# puts them back in the pick's, the order of play, cheaper than a sort here. The ids reach the DELETE through
# a subquery, so the planner, not knowing how many, looks each up in the queue's primary key: given the
# count it scans the whole queue once it holds tens of thousands (a burst), 2 ms more per 5,000-event batch.
_MARK_SQL = """
WITH dequeued AS (
    DELETE FROM slots_pendingevent WHERE event_id = ANY(ARRAY(SELECT unnest(%s::bigint[]))) RETURNING event_id
)
UPDATE slots_machineevent e SET pending = false, applied_at = %s
WHERE e.id = ANY(ARRAY(SELECT event_id FROM dequeued)) AND e.pending
RETURNING e.id, e.machine_id, e.type, e.wager_cents, e.is_max_bet, e.level_id, e.amount_cents,
    (extract(epoch FROM e.at) * 1000000)::bigint, e.seq
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

    def wait_for_earlier(self) -> None:
        """Returns once every batch that picked earlier has locked its levels (or is gone)."""
        if self.before:
            _sql(_SEATS_WAIT_SQL, [SEAT_CLASS, self.before])

    def leave(self) -> None:
        if self.held:
            self.held = False
            _sql("SELECT pg_advisory_unlock(%s, %s)", [SEAT_CLASS, self.key])


@contextmanager
def _claim_turn() -> Iterator[None]:
    """Holds the claim turn for the block: a session advisory lock, so it outlives a rollback and a lost
    connection takes it along."""
    _advisory("pg_advisory_lock", CLAIM_TURN_KEY)
    try:
        yield
    finally:
        try:
            _advisory("pg_advisory_unlock", CLAIM_TURN_KEY)
        except DatabaseError:  # the session is gone, and its lock with it
            logger.warning("the engine's claim turn went with its database session")


def _pick(size: int) -> tuple[ContributionBatch, list[int], _Seat | None]:
    """In the claim turn, so batch ids follow the pick order: the batch, the ids of the events it applies,
    and its seat (None if no event)."""
    with _claim_turn():
        batch = _batch_open()
        ids = [row[0] for row in _sql(_PICK_SQL, [settled_before(batch.applied_at), size])]
        if not ids:
            return batch, ids, None
        key = batch.pk % _INT4
        [(_, before)] = _sql(_SEAT_SQL, {"class": SEAT_CLASS, "seat": key})
        return batch, ids, _Seat(key, before)


def _mark(ids: list[int], at: dt.datetime) -> list[Claimed]:
    """Dequeues and marks the picked events; returns those still pending, in the order of ``ids``.

    The ids travel as one array literal: the driver's list adapter takes 2 ms to write 5,000 of them, a join
    0.4 ms."""
    literal = "{" + ",".join(map(str, ids)) + "}"
    marked = {row[0]: row for row in _sql(_MARK_SQL, [literal, at])}
    return [Claimed._make(marked[event_id]) for event_id in ids if event_id in marked]


def _claim_sqlite(size: int, at: dt.datetime) -> list[Claimed]:
    """SQLite: the transaction holds the database's write lock, there is nothing to skip or to seat."""
    pending = MachineEvent.objects.filter(pending=True, at__lte=settled_before(at))
    rows = list(pending.order_by("at", "machine_id", "seq").values_list(*_COLUMNS)[:size])
    MachineEvent.objects.filter(id__in=[row[0] for row in rows]).update(pending=False, applied_at=at)
    # ``at`` as integer microseconds, as PostgreSQL's claim gives it
    return [Claimed(*row[:7], (row[7] - _EPOCH) // _MICROSECOND, row[8]) for row in rows]


@dataclass(slots=True)
class _Claim:
    """A batch's events in play order, its machines' memberships, and (PostgreSQL) its seat."""

    events: list[Claimed]
    members: list[tuple[int, int, bool, str]]
    seat: _Seat | None = None

    def level_ids(self) -> list[int]:
        progressives = {member[1] for member in self.members}
        return list(Level.objects.filter(progressive_id__in=progressives).values_list("id", flat=True))

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
        events = _claim_sqlite(size, batch.applied_at)
        return batch, (_Claim(events, _members(sorted({e.machine_id for e in events}))) if events else None)
    batch, ids, seat = _pick(size)
    if seat is None:
        return batch, None
    claim = _Claim([], [], seat)
    try:
        claim.events = _mark(ids, batch.applied_at)
        if not claim.events:  # only ids whose events were cleared otherwise
            claim.seat_leave()
            return batch, None
        claim.members = _members(sorted({e.machine_id for e in claim.events}))
        seat.wait_for_earlier()
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
            written = levels_write(claim.level_ids(), lambda locked: _BatchApply(batch, locked, claim).run())
        finally:
            claim.seat_leave()
        written.result.write()
        ids = [event.id for event in claim.events]
        ContributionBatch.objects.filter(pk=batch.pk).update(
            event_count=len(ids), first_event_id=min(ids), last_event_id=max(ids)
        )
        if before_commit is not None:
            before_commit()
    return len(ids)


_MEMBERS_SQL = """
SELECT pm.machine_id, pm.progressive_id, pm.enabled, m.status
FROM jackpots_progressivemachine pm JOIN slots_slotmachine m ON m.id = pm.machine_id
WHERE pm.machine_id = ANY(%s)
"""


def _members(machine_ids: list[int]) -> list[tuple[int, int, bool, str]]:
    """(machine, progressive, enabled, machine status) of every membership of ``machine_ids``."""
    if connection.vendor == "postgresql":  # one array parameter instead of hundreds of placeholders
        return _sql(_MEMBERS_SQL, [machine_ids])
    memberships = ProgressiveMachine.objects.filter(machine_id__in=machine_ids)
    return list(memberships.values_list("machine_id", "progressive_id", "enabled", "machine__status"))


def _feeds(members: list[tuple[int, int, bool, str]], levels: dict[int, Level]) -> dict[int, list[Feed]]:
    """What each of the batch's machines feeds, among its locked ``levels``.

    A member that is disabled or whose machine is not in service is not live: it feeds nothing."""
    by_progressive: dict[int, list[Level]] = {}
    for level in levels.values():
        by_progressive.setdefault(level.progressive_id, []).append(level)
    feeds: dict[int, list[Feed]] = {}
    for machine_id, progressive_id, enabled, status in members:
        live = enabled and status == SlotMachine.Status.IN_SERVICE
        for level in by_progressive.get(progressive_id, ()):
            if not level.stopped:
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

    def run(self) -> Written[_BatchApply]:
        """The hot loop: no per-event objects; a level's wagers are summed until a hit splits them."""
        feeds, pending, params, states = self.feeds, self.pending, self.params, self.states
        for event in self.events:
            event_id, machine_id, kind, wager, is_max_bet, _, _, _, _ = event
            if kind == JACKPOT:
                self._jackpot(event)
                continue
            if kind != GAME:
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
                    self._hit(lid, event, HitKind.MYSTERY)
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
        at = event.at
        recorded = award_record_locked(
            self.levels[lid],
            self.states[lid],
            at=at,
            kind=kind,
            machine_id=event.machine_id,
            event_id=event.id if machine_triggered else None,
            machine_amount_cents=event.amount_cents if machine_triggered else None,
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
