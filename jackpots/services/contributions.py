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
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from jackpots.models import ContributionBatch, Hit, HitKind, HitRefusal, LedgerEntry, Level
from jackpots.services import core
from jackpots.services.contribution_claim import (
    SETTLE_WAITER_KEY,
    Claim,
    Claimed,
    Member,
    advisory_call,
    events_claim,
    settled_before,
)
from jackpots.services.hit_recording import (
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
from slots.selectors import offline_at

GAME = MachineEvent.Type.GAME
JACKPOT = MachineEvent.Type.JACKPOT
# Enough batches per call to drain a burst; beat calls again every second anyway.
MAX_BATCHES_PER_CALL = 200

# Called inside a batch's transaction just before it commits (the tests stop a worker there).
BeforeCommit = Callable[[], None]


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
    earliest: dt.datetime | None
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
    if not advisory_call("pg_try_advisory_lock", SETTLE_WAITER_KEY):
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
        advisory_call("pg_advisory_unlock", SETTLE_WAITER_KEY)


def contributions_batch_apply(size: int, before_commit: BeforeCommit | None = None) -> int:
    with transaction.atomic():
        batch, claim = events_claim(size)
        if claim is None:
            transaction.set_rollback(True)
            return 0
        try:
            written = levels_write(claim.level_ids, lambda locked: _BatchApply(batch, locked, claim).run())
        finally:
            claim.seat_leave()
        written.returned().write()
        if before_commit is not None:
            before_commit()
    return len(claim.events)


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

    def __init__(self, batch: ContributionBatch, locked: Locked, claim: Claim) -> None:
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
            assert wager is not None  # the ingest stores every game with its wager
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
        assert lid is not None  # the ingest stores every jackpot report with its level
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
