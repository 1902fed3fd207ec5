"""Stores a batch of validated events once each: new ones inserted, the rest split into duplicates
(same content) and conflicts (same seq, other content).

PostgreSQL takes the whole batch in ONE multi-row ``INSERT ... ON CONFLICT (machine_id, seq) DO NOTHING
RETURNING``: the unique index settles races between concurrent requests, and the rows it did not return are
looked up in one more query to tell duplicates from conflicts. Rows are inserted in (machine, seq) order so
two requests carrying the same events wait on each other instead of deadlocking. Other databases (the
embedded SQLite default) serialise writers, so a read of the existing rows followed by bulk_create is exact.
"""

from __future__ import annotations

from datetime import datetime
from functools import reduce
from operator import or_

import orjson
from django.db import connection
from django.db.models import Q

from slots.models import MachineEvent
from slots.services.parsing import ParsedEvent

_COLUMNS = (
    "machine_id, seq, type, at, received_at, digest, payload, wager_cents, win_cents, bank_id, "
    "denomination_cents, is_max_bet, level_id, amount_cents, pending"
)
_ROW = "(%s, %s, %s, %s, now(), %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"


def events_store(
    events: list[ParsedEvent], *, received_at: datetime
) -> tuple[list[ParsedEvent], dict[tuple[int, int], str]]:
    """Inserts what is new; returns the inserted events (``stored_id`` set) and the digest already
    stored for every other (machine_id, seq) of the batch."""
    events = sorted(events, key=lambda event: event.key)
    if connection.vendor == "postgresql":
        inserted_ids = _insert_postgresql(events)
        existing_keys = [event.key for event in events if event.key not in inserted_ids]
        existing = _digests(existing_keys)
    else:
        existing = _digests([event.key for event in events])
        new = [event for event in events if event.key not in existing]
        inserted_ids = _insert_generic(new, received_at=received_at)
    inserted = []
    for event in events:
        stored_id = inserted_ids.get(event.key)
        if stored_id is not None:
            event.stored_id = stored_id
            inserted.append(event)
    return inserted, existing


def _row(event: ParsedEvent) -> tuple:
    machine = event.machine
    is_game = event.type == MachineEvent.Type.GAME
    return (
        machine.id,
        event.seq,
        event.type,
        event.at,
        event.digest,
        orjson.dumps(event.payload).decode(),
        event.wager,
        event.win,
        machine.bank_id if is_game else None,
        machine.denomination_cents if is_game else None,
        (event.wager == machine.max_bet_cents) if is_game else None,
        event.level,
        event.amount,
        event.pending,
    )


def _insert_postgresql(events: list[ParsedEvent]) -> dict[tuple[int, int], int]:
    if not events:
        return {}
    sql = (
        f"INSERT INTO slots_machineevent ({_COLUMNS}) VALUES {', '.join([_ROW] * len(events))} "
        "ON CONFLICT (machine_id, seq) DO NOTHING RETURNING machine_id, seq, id"
    )
    params = [value for event in events for value in _row(event)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {(machine_id, seq): pk for machine_id, seq, pk in cursor.fetchall()}


def _insert_generic(events: list[ParsedEvent], *, received_at: datetime) -> dict[tuple[int, int], int]:
    rows = []
    for event in events:
        values = _row(event)
        rows.append(
            MachineEvent(
                machine_id=values[0],
                seq=values[1],
                type=values[2],
                at=values[3],
                received_at=received_at,
                digest=values[4],
                payload=event.payload,
                wager_cents=values[6],
                win_cents=values[7],
                bank_id=values[8],
                denomination_cents=values[9],
                is_max_bet=values[10],
                level_id=values[11],
                amount_cents=values[12],
                pending=values[13],
            )
        )
    MachineEvent.objects.bulk_create(rows)
    return {(row.machine_id, row.seq): row.pk for row in rows}


def _digests(keys: list[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """The stored digest of each (machine_id, seq) in ``keys`` that exists, in one query."""
    if not keys:
        return {}
    seqs_by_machine: dict[int, list[int]] = {}
    for machine_id, seq in keys:
        seqs_by_machine.setdefault(machine_id, []).append(seq)
    condition = reduce(
        or_, (Q(machine_id=machine_id, seq__in=seqs) for machine_id, seqs in seqs_by_machine.items())
    )
    return {
        (machine_id, seq): digest
        for machine_id, seq, digest in MachineEvent.objects.filter(condition).values_list(
            "machine_id", "seq", "digest"
        )
    }
