"""Splits the contribution rows written before the machines' parts existed (the audit checks them).

A frozen copy of the allocation in jackpots/services/machine_split.py as it was when this migration was
written: a migration must give the same result whatever the service code later becomes, so it imports
none of it. Rows are read with plain SQL and written through the historical model.

Largest remainder, for each meter delta D of a ledger row and machines m with eligible wagers w_m (W =
their sum): part_m = floor(|D| x w_m / W), then the |D| - sum(part) millicents left go one each to the
machines with the largest remainders (|D| x w_m mod W), ties to the lower machine id; D's sign is kept.
"""

import json
from datetime import UTC

from django.db import migrations

# Ledger rows with no machine rows yet, and what each one's parts are allocated by: the eligible wagers
# recounted from the raw events its batch marked (as the audit recounts them), or for a void the wagers
# of the contribution rows since the voided hit.
ROWS_SQL = """
SELECT le.id, le.level_id, le.kind, le.at, le.hit_id, le.excluded_machine_ids, le.current_delta_mc,
       le.reserve_delta_mc, le.overflow_delta_mc, le.contributed_mc
FROM jackpots_ledgerentry le
WHERE (le.kind = 'contribution' AND le.batch_id IS NOT NULL OR le.kind = 'void')
  AND NOT EXISTS (SELECT 1 FROM jackpots_machinecontribution mc WHERE mc.entry_id = le.id)
ORDER BY le.level_id, le.id
"""
WAGERS_SQL = """
SELECT e.machine_id, COALESCE(SUM(e.wager_cents), 0)
FROM jackpots_ledgerentry le
JOIN jackpots_level l ON l.id = le.level_id
JOIN jackpots_contributionbatch b ON b.id = le.batch_id
JOIN slots_machineevent e ON e.applied_at = b.applied_at
    AND e.id BETWEEN le.first_event_id AND le.last_event_id
    AND e.type = 1 AND e.wager_cents >= le.min_wager_cents
    AND (NOT le.max_bet_only OR e.is_max_bet)
JOIN jackpots_progressivemachine pm ON pm.machine_id = e.machine_id AND pm.progressive_id = l.progressive_id
WHERE le.id = %s
GROUP BY e.machine_id
"""
SINCE_SQL = """
SELECT mc.machine_id, SUM(mc.wagered_cents) FROM jackpots_machinecontribution mc
JOIN jackpots_ledgerentry le ON le.id = mc.entry_id AND le.kind = 'contribution'
WHERE mc.level_id = %s AND mc.entry_id > (
    SELECT COALESCE(MAX(a.id), 0) FROM jackpots_ledgerentry a WHERE a.hit_id = %s AND a.kind <> 'void'
) AND mc.entry_id < %s
GROUP BY mc.machine_id
"""


def largest_remainder(total, weights):
    """``total`` split over ``weights`` [(machine id, weight >= 0)] sorted by machine id."""
    if total == 0:
        return [0] * len(weights)
    whole = sum(weight for _, weight in weights)
    if whole <= 0:
        raise ValueError("largest remainder needs a positive total weight")
    amount = abs(total)
    parts, remainders = [], []
    for index, (key, weight) in enumerate(weights):
        part, remainder = divmod(amount * weight, whole)
        parts.append(part)
        remainders.append((-remainder, key, index))
    for _, _, index in sorted(remainders)[: amount - sum(parts)]:
        parts[index] += 1
    return [-part for part in parts] if total < 0 else parts


def contribution_parts(deltas, wagers):
    """(machine id, wagered, current, reserve, overflow, contributed) of a contribution row."""
    weights = sorted(wagers.items())
    current, reserve, overflow = (largest_remainder(delta, weights) for delta in deltas)
    return [
        (machine_id, wagered, c, r, o, c + r + o)
        for (machine_id, wagered), c, r, o in zip(weights, current, reserve, overflow, strict=True)
    ]


def void_parts(contributed, wagers):
    """A void's correction of contributions, over the machines' wagers since the voided hit."""
    weights = sorted((machine_id, cents) for machine_id, cents in wagers.items() if cents > 0)
    if not weights or not contributed:
        return []
    parts = largest_remainder(contributed, weights)
    return [(machine_id, 0, 0, 0, 0, part) for (machine_id, _), part in zip(weights, parts, strict=True)]


def _row_parts(cursor, row):
    entry_id, level_id, kind, _, hit_id, excluded, current, reserve, overflow, contributed = row
    if kind == "void":
        cursor.execute(SINCE_SQL, [level_id, hit_id, entry_id])
        return void_parts(contributed, {m: int(c) for m, c in cursor.fetchall()})
    cursor.execute(WAGERS_SQL, [entry_id])
    left_out = set(json.loads(excluded) if isinstance(excluded, str) else excluded or [])
    wagers = {m: int(c) for m, c in cursor.fetchall() if m not in left_out}
    return contribution_parts((current, reserve, overflow), wagers)


def parts_backfill(apps, db):
    """Splits every ledger row that has no machine rows yet (idempotent); returns the rows split."""
    machine_contribution = apps.get_model("jackpots", "MachineContribution")
    with db.cursor() as cursor:
        cursor.execute(ROWS_SQL)
        rows = cursor.fetchall()
    for row in rows:
        entry_id, level_id, stamp = row[0], row[1], row[3]
        at = stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=UTC)  # SQLite: UTC, no zone
        with db.cursor() as cursor:
            parts = _row_parts(cursor, row)
        machine_contribution.objects.using(db.alias).bulk_create(
            machine_contribution(
                entry_id=entry_id,
                level_id=level_id,
                at=at,
                machine_id=machine_id,
                wagered_cents=wagered,
                current_mc=c,
                reserve_mc=r,
                overflow_mc=o,
                contributed_mc=total,
            )
            for machine_id, wagered, c, r, o, total in parts
        )
    return len(rows)


def backfill(apps, schema_editor) -> None:
    parts_backfill(apps, schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [("jackpots", "0005_machine_contributions")]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
