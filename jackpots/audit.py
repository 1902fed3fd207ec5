"""The audit: recomputes every level from the raw events, the ledger and the hits (a read; changes nothing).

For each level it checks that
- each contribution row's events and eligible wagered sum equal a recount of the raw events its batch
  marked (between its first and last event in the order of play, member machines minus those the row
  excluded, the row's minimum wager and max-bet rule, no game dated while its machine was marked offline);
- each row conserves money (meter deltas == contributions + reset values put in - awards) and each
  contribution row follows the carry rule (amounts added since the carry base == floor(wagered x rate));
- the level's current, reserve, overflow, wagered, total won and carry equal the ledger's replay, and the
  amount is not below the reset value;
- each award row takes out exactly what its hits were paid;
- what the apps above keep of a level's prizes holds (``providers.level_audits``; tables: a table prize
  whose hit is voided is voided everywhere, the parts of a standing one add up to it);
- each batch's contribution row is split over its machines exactly as the largest-remainder allocation of
  the row over the raw events' wagers per machine gives (``machine_split``), and each void's correction of
  contributions over the machines' wagers since its hit;
- a mystery level's trigger lies in its cycle's range (``trigger_audit``);
- each machine-reported hit was won on an eligible game: its triggering game (the machine's last game
  before the report, in seq order) exists, reaches the minimum wager and is a max bet where the level (as
  it stood before the hit) required one, from a member machine; and each engine hit records its
  event's place in the order of play, ``late`` exactly when a hit numbered before it was played after it;
and, for all events, that every applied event belongs to a batch and every batch's count matches, that
every machine contribution row names a ledger row of its level, that every applied jackpot report
became exactly one hit or one refusal, and that every implausible meter delta is flagged for review
(``meters_audit``).
Discrepancies never print a mystery trigger.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal

from django.db import connection, transaction
from django.db.models import F, Window
from django.db.models.functions import Lag

from jackpots.hooks import providers
from jackpots.models import (
    Hit,
    HitKind,
    LedgerEntry,
    Level,
    MachineContribution,
    ProgressiveMachine,
)
from jackpots.services import core
from jackpots.services.hit_recording import triggering_game
from jackpots.services.levels import snapshot_params, snapshot_state
from jackpots.services.machine_split import PART_COLUMNS, Part, contribution_parts, void_parts
from slots.models import MachineEvent, MeterDelta
from slots.services.meters import meter_ceiling, plausibility_rule


@dataclass(frozen=True)
class Discrepancy:
    level_id: int | None
    what: str

    def __str__(self) -> str:
        where = f"level {self.level_id}" if self.level_id is not None else "events"
        return f"{where}: {self.what}"


# A batch applies its events in the order of play (at, machine, seq), so a row's events are those of its
# batch between its first and last event in that order.
_RECOUNT_SQL = """
SELECT le.id, e.machine_id, COUNT(e.id), COALESCE(SUM(e.wager_cents), 0)
FROM jackpots_ledgerentry le
JOIN jackpots_contributionbatch b ON b.id = le.batch_id
JOIN slots_machineevent f ON f.id = le.first_event_id
JOIN slots_machineevent l ON l.id = le.last_event_id
JOIN slots_machineevent e ON e.applied_at = b.applied_at
    AND (e.at, e.machine_id, e.seq) >= (f.at, f.machine_id, f.seq)
    AND (e.at, e.machine_id, e.seq) <= (l.at, l.machine_id, l.seq)
    AND e.type = %s AND e.wager_cents >= le.min_wager_cents
    AND (NOT le.max_bet_only OR e.is_max_bet)
    AND NOT EXISTS (SELECT 1 FROM slots_offlineperiod o WHERE o.machine_id = e.machine_id
        AND e.at >= o.started_at AND (o.ended_at IS NULL OR e.at < o.ended_at))
JOIN jackpots_progressivemachine pm ON pm.machine_id = e.machine_id AND pm.progressive_id = %s
WHERE le.level_id = %s AND le.kind = %s
GROUP BY le.id, e.machine_id
"""


def _recount(level: Level) -> dict[int, list[tuple[int, int, int]]]:
    with connection.cursor() as cursor:
        cursor.execute(
            _RECOUNT_SQL,
            [MachineEvent.Type.GAME, level.progressive_id, level.id, LedgerEntry.Kind.CONTRIBUTION],
        )
        rows = cursor.fetchall()
    by_entry: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
    for entry_id, machine_id, count, wagered in rows:
        by_entry[entry_id].append((machine_id, count, int(wagered)))
    return by_entry


def _splits(level: Level) -> dict[int, list[Part]]:
    rows = MachineContribution.objects.filter(level=level).order_by("entry_id", "machine_id")
    by_entry: dict[int, list[Part]] = defaultdict(list)
    for entry_id, *part in rows.values_list("entry_id", *PART_COLUMNS):
        by_entry[entry_id].append(tuple(part))
    return by_entry


def _split_audit(
    entry: LedgerEntry, stored: list[Part], expected: list[Part], bad: Callable[[str], None]
) -> None:
    if stored == expected:
        return
    sums = [sum(part[i] for part in stored) for i in range(1, 6)]
    bad(
        f"ledger row {entry.id}: its {len(stored)} machine rows (wagered, current, reserve, overflow, "
        f"contributed: {sums}) are not the allocation of the row over {len(expected)} machines"
    )


@dataclass
class _LedgerReplay:
    """A level's ledger replayed row by row in the engine's order: each row's checks, and the totals and
    carry the level should hold after them. ``bad`` records a discrepancy."""

    bad: Callable[[str], None]
    recount: dict[int, list[tuple[int, int, int]]]  # contribution row: [(machine, events, wagered)]
    splits: dict[int, list[Part]]  # ledger row: its stored machine rows
    hits: dict[int, Hit]
    current: int = 0
    reserve: int = 0
    overflow: int = 0
    wagered: int = 0
    awarded: int = 0
    carry_w: int = 0
    carry_a: int = 0
    carry_r: int = 0
    # Machines' eligible wagers per contribution row in ledger order, for the voids' split.
    machine_wagers: list[tuple[int, dict[int, int]]] = field(default_factory=list)

    def entry_apply(self, entry: LedgerEntry) -> None:
        moved = entry.current_delta_mc + entry.reserve_delta_mc + entry.overflow_delta_mc
        came = entry.contributed_mc + entry.seeded_mc + entry.corrected_mc + entry.transferred_mc
        if moved != came - entry.awarded_mc:
            self.bad(f"ledger row {entry.id} does not conserve money")
        if entry.kind == LedgerEntry.Kind.CONTRIBUTION:
            if entry.batch_id is not None:
                self._batch_check(entry)
            self._carry_check(entry)
        if entry.carry_restart and entry.kind != LedgerEntry.Kind.VOID:
            self.carry_w = self.carry_a = self.carry_r = 0
        if entry.kind == LedgerEntry.Kind.VOID and entry.hit_id in self.hits:
            self._void_apply(entry)
        self.current += entry.current_delta_mc
        self.reserve += entry.reserve_delta_mc
        self.overflow += entry.overflow_delta_mc
        self.wagered += entry.wagered_cents
        self.awarded += entry.awarded_mc
        if entry.kind in (LedgerEntry.Kind.HIT, LedgerEntry.Kind.AWARD) and entry.hit_id in self.hits:
            self._award_check(entry)

    def _batch_check(self, entry: LedgerEntry) -> None:
        """A batch's row against the recount of the raw events it marked, and its machine rows."""
        excluded = set(entry.excluded_machine_ids)
        rows = [r for r in self.recount.get(entry.id, []) if r[0] not in excluded]
        count, total = sum(r[1] for r in rows), sum(r[2] for r in rows)
        if (count, total) != (entry.event_count, entry.wagered_cents):
            self.bad(
                f"ledger row {entry.id} sums {entry.event_count} events / "
                f"{entry.wagered_cents} cents, the raw events give {count} / {total}"
            )
        wagers = {machine_id: cents for machine_id, _, cents in rows}
        _split_audit(entry, self.splits.get(entry.id, []), contribution_parts(entry, wagers), self.bad)
        self.machine_wagers.append((entry.id, wagers))

    def _carry_check(self, entry: LedgerEntry) -> None:
        """The amounts a contribution row adds: floor(wagered x rate) since the carry base, less what
        earlier rows of the same base added."""
        self.carry_w += entry.wagered_cents
        added = core.share_mc(self.carry_w, Decimal(entry.rate)) - self.carry_a
        reserved = core.share_mc(self.carry_w, Decimal(entry.reserve_rate)) - self.carry_r
        if (entry.current_delta_mc + entry.overflow_delta_mc, entry.reserve_delta_mc) != (added, reserved):
            self.bad(
                f"ledger row {entry.id} breaks the carry rule (expected +{added} mc, reserve +{reserved} mc)"
            )
        self.carry_a += added
        self.carry_r += reserved

    def _void_apply(self, entry: LedgerEntry) -> None:
        """The void replays the wagers since the hit onto the level as it was before it."""
        hit = self.hits[entry.hit_id]
        since = max((e.id for e in hit.ledger.exclude(kind=LedgerEntry.Kind.VOID)), default=0)
        wagers_since: dict[int, int] = defaultdict(int)
        for entry_id, wagers in self.machine_wagers:
            if entry_id > since:
                for machine_id, cents in wagers.items():
                    wagers_since[machine_id] += cents
        _split_audit(entry, self.splits.get(entry.id, []), void_parts(entry, wagers_since), self.bad)
        before = snapshot_state(hit.before)
        self.carry_w = before.carry_wagered_cents + self.wagered - before.wagered_cents
        self.carry_a = core.share_mc(self.carry_w, Decimal(entry.rate))
        self.carry_r = core.share_mc(self.carry_w, Decimal(entry.reserve_rate))

    def _award_check(self, entry: LedgerEntry) -> None:
        """A hit or award row takes out exactly what the hits of its cycle's draw were paid."""
        first = self.hits[entry.hit_id]
        winners = [h for h in self.hits.values() if (h.cycle, h.level_seq) == (first.cycle, first.level_seq)]
        paid = sum(h.amount_cents for h in winners) * core.MC_PER_CENT
        if paid != entry.awarded_mc:
            self.bad(f"ledger row {entry.id} takes {entry.awarded_mc} mc out, its hits were paid {paid} mc")

    def totals_check(self, level: Level) -> None:
        """The level's stored amounts against the replay's."""
        expected = {
            "current": (level.current_mc, self.current),
            "reserve": (level.reserve_mc, self.reserve),
            "overflow": (level.overflow_mc, self.overflow),
            "wagered": (level.wagered_cents, self.wagered),
            "total won (mc)": (level.total_won_cents * core.MC_PER_CENT, self.awarded),
            "carry wagered": (level.carry_wagered_cents, self.carry_w),
            "carry added": (level.carry_added_mc, self.carry_a),
            "carry reserved": (level.carry_reserved_mc, self.carry_r),
        }
        for name, (stored, replayed) in expected.items():
            if stored != replayed:
                self.bad(f"{name} is {stored}, the ledger gives {replayed}")


def level_audit(level: Level) -> list[Discrepancy]:
    found: list[Discrepancy] = []

    def bad(what: str) -> None:
        found.append(Discrepancy(level.id, what))

    recount = _recount(level)
    splits = _splits(level)
    hits = {hit.id: hit for hit in Hit.objects.filter(level=level)}
    replay = _LedgerReplay(bad, recount, splits, hits)
    for entry in LedgerEntry.objects.filter(level=level).order_by("id"):
        replay.entry_apply(entry)
    replay.totals_check(level)
    for audit in providers.level_audits:
        audit(level, bad)
    if level.current_mc < level.reset_mc:
        bad(f"current {level.current_mc} mc is below the reset value {level.reset_mc} mc")
    found.extend(trigger_audit(level))
    return found


def trigger_audit(level: Level) -> list[Discrepancy]:
    """A mystery level's trigger lies where ``core.draw_trigger`` draws it for the cycle: above the amount
    the trigger was drawn at (the level's amount after the ledger row that drew it: its seed, the hit that
    started the cycle, a change while suspended; a void restores its cycle's) and below the limit, or that
    amount itself when it is within a millicent of the limit."""
    if not level.mystery:
        return []
    current, start = 0, None
    rows = LedgerEntry.objects.filter(level=level).order_by("id")
    for kind, cycle, delta, restart in rows.values_list("kind", "cycle", "current_delta_mc", "carry_restart"):
        current += delta
        if restart and kind != LedgerEntry.Kind.VOID and cycle == level.cycle:
            start = current
    trigger, limit = level.trigger_mc, level.limit_mc
    if trigger is None or start is None or limit is None:
        placed = False
    elif start >= limit - 1:
        placed = trigger == start
    else:
        placed = start < trigger < limit
    if placed:
        return []
    # Never the trigger itself (rule 9): the audit's output reaches people who may not see it.
    return [
        Discrepancy(level.id, "the mystery trigger is missing or outside its cycle's range (start, limit)")
    ]


def meters_audit() -> list[Discrepancy]:
    """Every increment or rollover of a meter beyond what its machine could have played since the meter's
    previous snapshot (``meter_ceiling``, with the machine's max bet and the settings now) is flagged for
    review; one that is not is reported."""
    rule = plausibility_rule()
    previous_at = Window(Lag("at"), partition_by=[F("machine_id"), F("name")], order_by=F("event__seq").asc())
    rows = MeterDelta.objects.annotate(previous_at=previous_at).values_list(
        "machine__asset_number",
        "machine__max_bet_cents",
        "event__seq",
        "name",
        "kind",
        "delta",
        "review",
        "at",
        "previous_at",
    )
    found = []
    for asset, max_bet, seq, name, kind, delta, review, at, before in rows:
        if kind not in (MeterDelta.Kind.INCREMENT, MeterDelta.Kind.ROLLOVER) or review or before is None:
            continue
        ceiling = meter_ceiling(name, max_bet, at - before, rule)
        if delta > ceiling:
            found.append(
                Discrepancy(
                    None,
                    f"{asset} meter {name} at seq {seq}: +{delta} is beyond the plausible "
                    f"+{ceiling} and is not flagged for review",
                )
            )
    return found


_ORPHANS_SQL = """
SELECT COUNT(*) FROM slots_machineevent e
WHERE NOT e.pending AND e.type IN (%s, %s) AND e.applied_at IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM jackpots_contributionbatch b WHERE b.applied_at = e.applied_at)
"""
_BATCH_COUNTS_SQL = """
SELECT b.id, b.event_count, COUNT(e.id) FROM jackpots_contributionbatch b
LEFT JOIN slots_machineevent e ON e.applied_at = b.applied_at
GROUP BY b.id, b.event_count HAVING b.event_count <> COUNT(e.id)
"""


_SPLIT_ORPHANS_SQL = """
SELECT COUNT(*) FROM jackpots_machinecontribution mc
LEFT JOIN jackpots_ledgerentry le ON le.id = mc.entry_id
WHERE le.id IS NULL OR le.level_id <> mc.level_id
"""


def events_audit() -> list[Discrepancy]:
    found = []
    with connection.cursor() as cursor:
        cursor.execute(_SPLIT_ORPHANS_SQL)
        (orphans,) = cursor.fetchone()
        if orphans:
            found.append(
                Discrepancy(None, f"{orphans} machine contribution rows name no ledger row of their level")
            )
        cursor.execute(_ORPHANS_SQL, [MachineEvent.Type.GAME, MachineEvent.Type.JACKPOT])
        (orphans,) = cursor.fetchone()
        if orphans:
            found.append(Discrepancy(None, f"{orphans} applied events belong to no batch"))
        cursor.execute(_BATCH_COUNTS_SQL)
        for batch_id, recorded, counted in cursor.fetchall():
            found.append(
                Discrepancy(None, f"batch {batch_id} records {recorded} events, {counted} carry its mark")
            )
    return found


def machine_hits_audit(level: Level) -> list[Discrepancy]:
    """Each machine-reported hit was won on an eligible game of a member machine (finding: never paid on a
    game the level did not accept)."""
    found = []
    members = set(
        ProgressiveMachine.objects.filter(progressive_id=level.progressive_id).values_list(
            "machine_id", flat=True
        )
    )
    reported = Hit.objects.filter(level=level, kind=HitKind.MACHINE, event_id__isnull=False).order_by(
        "number"
    )
    reports = MachineEvent.objects.filter(id__in=reported.values("event_id")).values_list(
        "id", "seq", "applied_at"
    )
    places = {event_id: (seq, applied_at) for event_id, seq, applied_at in reports}
    for hit in reported:
        params = snapshot_params(hit.before)
        seq, applied_at = places.get(hit.event_id, (0, None))
        game = triggering_game(hit.machine_id, seq, applied_by=applied_at)
        if hit.machine_id not in members:
            why = "its machine is not a member of the progressive"
        elif game is None:
            why = "no game of its machine came before the report"
        elif not core.eligible(params, game[1], game[2]):
            why = f"its triggering game (event {game[0]}, {game[1]} cents) was not eligible for the level"
        else:
            continue
        found.append(
            Discrepancy(
                level.id,
                f"hit {hit.ref or hit.id} (the level's hit {hit.number}) should not have been paid: {why}",
            )
        )
    return found


def _play_key(hit: Hit) -> tuple:
    return hit.at, hit.machine_id or 0, hit.play_seq


def hit_order_audit(level: Level) -> list[Discrepancy]:
    """Engine hits record their event's place in the order of play, and ``late`` exactly when a hit numbered
    before them on the level was played after them (so the numbering is the order of play otherwise)."""
    found = []
    hits = list(Hit.objects.filter(level=level).order_by("number"))
    events = {
        e[0]: e[1:]
        for e in MachineEvent.objects.filter(id__in=[h.event_id for h in hits if h.event_id]).values_list(
            "id", "at", "machine_id", "seq"
        )
    }
    latest = None
    for hit in hits:
        if hit.event_id is not None and events.get(hit.event_id) != (hit.at, hit.machine_id, hit.play_seq):
            found.append(
                Discrepancy(level.id, f"hit {hit.ref or hit.id} does not record its event's place in play")
            )
        if hit.play_seq is None:
            continue
        key = _play_key(hit)
        late = latest is not None and latest > key
        if late != hit.late:
            found.append(
                Discrepancy(
                    level.id, f"hit {hit.ref or hit.id} is marked late={hit.late}, the order says {late}"
                )
            )
        latest = key if latest is None else max(latest, key)
    return found


_REPORTS_SQL = """
SELECT e.id FROM slots_machineevent e
WHERE e.type = %s AND e.applied_at IS NOT NULL
  AND (SELECT COUNT(*) FROM jackpots_hit h WHERE h.event_id = e.id)
    + (SELECT COUNT(*) FROM jackpots_hitrefusal r WHERE r.event_id = e.id) <> 1
"""


def jackpot_reports_audit() -> list[Discrepancy]:
    """Every applied jackpot report became exactly one hit or one refusal: none silently dropped."""
    with connection.cursor() as cursor:
        cursor.execute(_REPORTS_SQL, [MachineEvent.Type.JACKPOT])
        ids = [row[0] for row in cursor.fetchall()]
    if not ids:
        return []
    return [
        Discrepancy(None, f"{len(ids)} applied jackpot reports are neither a hit nor a refusal: {ids[:10]}")
    ]


def jackpots_audit() -> tuple[int, list[Discrepancy]]:
    """(levels checked, discrepancies), all read from ONE snapshot of the database.

    On a live floor the engine commits batches while the audit reads: read in separate statements, a
    level could be read before a batch and its ledger after it, and the audit reported the ledger "ahead"
    of the level (12-24 false discrepancies a run under the simulator). One REPEATABLE READ, READ ONLY
    transaction on PostgreSQL sees every table as of its first query; SQLite's one writer at a time gives
    a read transaction the same. Inside a caller's transaction (tests), that transaction's view is used."""
    if connection.in_atomic_block:
        return _audit_all()
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        return _audit_all()


def _audit_all() -> tuple[int, list[Discrepancy]]:
    levels = list(Level.objects.order_by("id"))
    found = events_audit() + jackpot_reports_audit() + meters_audit()
    for level in levels:
        found.extend(level_audit(level))
        found.extend(machine_hits_audit(level))
        found.extend(hit_order_audit(level))
    return len(levels), found
