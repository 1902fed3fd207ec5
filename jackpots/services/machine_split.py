"""Each machine's part of a contribution ledger row (``MachineContribution``), allocated exactly.

A batch applies many machines' wagers to a level in ONE ledger row (carry rule, docs/design.md "Money"), so
the per-machine figures are an allocation of that row, not a recomputation: recomputing floor(wager x rate)
per machine would lose the fractions the carry keeps. Largest remainder, for each meter delta D of the row and
machines m with eligible wagers w_m (W = their sum):
    part_m = floor(|D| x w_m / W), then the |D| - sum(part) millicents left go one each to the machines
    with the largest remainders (|D| x w_m mod W), ties to the lower machine id; the sign of D is kept.
So the parts of a row add up to it exactly, each part is within one millicent of its proportional share,
and the result depends on nothing but the row and the wagers (the audit recomputes it).
"""

from __future__ import annotations

from collections.abc import Mapping

from django.db import connection
from django.db.models import Sum

from common.pg_arrays import array_literal
from jackpots.models import LedgerEntry, MachineContribution

# (machine_id, wagered_cents, current_mc, reserve_mc, overflow_mc, contributed_mc)
Part = tuple[int, int, int, int, int, int]


def largest_remainder(total: int, weights: list[tuple[int, int]]) -> list[int]:
    """``total`` split over ``weights`` [(machine id, weight >= 0)] (any order), as described above."""
    if total == 0:
        return [0] * len(weights)
    whole = sum(weight for _, weight in weights)
    if whole <= 0:
        raise ValueError("largest remainder needs a positive total weight")
    amount = abs(total)
    parts: list[int] = []
    remainders: list[tuple[int, int, int]] = []
    for index, (key, weight) in enumerate(weights):
        part, remainder = divmod(amount * weight, whole)
        parts.append(part)
        remainders.append((-remainder, key, index))
    left = amount - sum(parts)
    if left:
        for _, _, index in sorted(remainders)[:left]:
            parts[index] += 1
    if total < 0:
        return [-part for part in parts]
    return parts


def contribution_parts(entry: LedgerEntry, wagers: Mapping[int, int]) -> list[Part]:
    """A batch's contribution row split over its machines' eligible wagers {machine id: cents}."""
    weights = sorted(wagers.items())
    current = largest_remainder(entry.current_delta_mc, weights)
    reserve = largest_remainder(entry.reserve_delta_mc, weights)
    overflow = largest_remainder(entry.overflow_delta_mc, weights)
    return [
        (machine_id, wagered, c, r, o, c + r + o)
        for (machine_id, wagered), c, r, o in zip(weights, current, reserve, overflow, strict=True)
    ]


def wagers_since(level_id: int, after_entry_id: int) -> dict[int, int]:
    """Each machine's eligible wagers on the level in the contribution rows after ``after_entry_id``."""
    rows = MachineContribution.objects.filter(
        level_id=level_id, entry_id__gt=after_entry_id, entry__kind=LedgerEntry.Kind.CONTRIBUTION
    )
    grouped = rows.values("machine_id").annotate(total=Sum("wagered_cents")).order_by()
    return {row["machine_id"]: row["total"] for row in grouped}


def void_parts(entry: LedgerEntry, wagers: Mapping[int, int]) -> list[Part]:
    """A void's correction of contributions split over the machines' wagers since the voided hit."""
    weights = sorted((machine_id, cents) for machine_id, cents in wagers.items() if cents > 0)
    if not weights or not entry.contributed_mc:
        return []
    parts = largest_remainder(entry.contributed_mc, weights)
    return [(machine_id, 0, 0, 0, 0, part) for (machine_id, _), part in zip(weights, parts, strict=True)]


# A Part's fields, in its order, and the table's columns as the inserts write them.
PART_COLUMNS = ["machine_id", "wagered_cents", "current_mc", "reserve_mc", "overflow_mc", "contributed_mc"]
_COLUMNS = ["entry_id", "level_id", "at", *PART_COLUMNS]
_INSERT_SQL = f"""
INSERT INTO jackpots_machinecontribution ({", ".join(_COLUMNS)})
SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::timestamptz[], {", ".join(["%s::bigint[]"] * 6)})
"""


def machine_parts_insert(split: list[tuple[LedgerEntry, list[Part]]]) -> None:
    """Writes the parts of saved ledger rows in ONE statement (nine arrays on PostgreSQL: no per-row
    objects or placeholders on the hot path; array literals, not lists the driver adapts one by one)."""
    rows = [(entry.pk, entry.level_id, entry.at, *part) for entry, parts in split for part in parts]
    if not rows:
        return
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_INSERT_SQL, [array_literal(column) for column in zip(*rows, strict=True)])
        return
    MachineContribution.objects.bulk_create(
        MachineContribution(**dict(zip(_COLUMNS, row, strict=True))) for row in rows
    )
