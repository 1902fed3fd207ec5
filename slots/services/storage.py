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

import psycopg
from django.db import connection
from django.db.models import Q

from slots.models import MachineEvent
from slots.services.parsing import ParsedEvent

_COLUMNS = (
    "machine_id, seq, type, at, received_at, digest, payload, wager_cents, win_cents, bank_id, "
    "denomination_cents, is_max_bet, level_id, amount_cents, pending"
)
# The batch travels as one array per column: 14 parameters instead of 14 per row, so neither the driver
# nor the server parses a statement that grows with the batch.
_UNNEST = (
    "SELECT u.machine_id, u.seq, u.type, u.at, now(), u.digest, u.payload, u.wager_cents, u.win_cents, "
    "u.bank_id, u.denomination_cents, u.is_max_bet, u.level_id, u.amount_cents, u.pending "
    "FROM unnest(%s::bigint[], %s::bigint[], %s::smallint[], %s::timestamptz[], %s::varchar[], "
    "%s::jsonb[], %s::bigint[], %s::bigint[], %s::bigint[], %s::integer[], %s::boolean[], %s::bigint[], "
    "%s::bigint[], %s::boolean[]) AS u(machine_id, seq, type, at, digest, payload, wager_cents, win_cents, "
    "bank_id, denomination_cents, is_max_bet, level_id, amount_cents, pending) "
    "ORDER BY u.machine_id, u.seq"
)
_INSERT = (
    f"INSERT INTO slots_machineevent ({_COLUMNS}) {_UNNEST} "
    "ON CONFLICT (machine_id, seq) DO NOTHING RETURNING machine_id, seq, id"
)
# The same insert, and in the same statement the machine's last_seen/last_game_at move and an offline
# machine comes back in service (machines_touch, for a batch of one machine's games and jackpots). One
# statement is one transaction: no BEGIN/COMMIT round trips on the hot path. GREATEST skips NULLs.
_INSERT_AND_TOUCH = (
    f"WITH inserted AS (INSERT INTO slots_machineevent ({_COLUMNS}) {_UNNEST} "
    "ON CONFLICT (machine_id, seq) DO NOTHING RETURNING machine_id, seq, id, type, at), "
    "seen AS (SELECT machine_id, max(at) FILTER (WHERE type = 1) AS game_at FROM inserted "
    "GROUP BY machine_id), "
    "touched AS (UPDATE slots_slotmachine AS m SET last_seen = GREATEST(m.last_seen, now()), "
    "last_game_at = GREATEST(m.last_game_at, seen.game_at), "
    "status = CASE WHEN m.status = 'offline' THEN 'in_service' ELSE m.status END "
    "FROM seen WHERE m.id = seen.machine_id RETURNING m.id) "
    "SELECT machine_id, seq, id FROM inserted"
)


def events_store(
    events: list[ParsedEvent], *, received_at: datetime, touch: bool = False
) -> tuple[list[ParsedEvent], dict[tuple[int, int], str]]:
    """Inserts what is new; returns the inserted events (``stored_id`` set) and the digest already
    stored for every other (machine_id, seq) of the batch. With ``touch`` (PostgreSQL only, one
    machine's games and jackpots) the same statement does what machines_touch would."""
    events = sorted(events, key=lambda event: event.key)
    if connection.vendor == "postgresql":
        inserted_ids = _insert_postgresql(events, touch=touch)
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


# The model fields of _columns' lists, in order (received_at is the database's now()).
_FIELDS = (
    "machine_id", "seq", "type", "at", "digest", "payload", "wager_cents", "win_cents", "bank_id",
    "denomination_cents", "is_max_bet", "level_id", "amount_cents", "pending",
)  # fmt: skip


def _columns(events: list[ParsedEvent]) -> list[list]:
    """The batch as one list per column, in _UNNEST's order (_FIELDS)."""
    columns: list[list] = [[] for _ in range(14)]
    (machine_ids, seqs, types, ats, digests, payloads, wagers, wins, banks, denominations, max_bets,
     levels, amounts, pendings) = columns  # fmt: skip
    for event in events:
        machine = event.machine
        is_game = event.type == MachineEvent.Type.GAME
        machine_ids.append(machine.id)
        seqs.append(event.seq)
        types.append(event.type)
        ats.append(event.at)
        digests.append(event.digest)
        payloads.append(event.payload_json.decode())
        wagers.append(event.wager)
        wins.append(event.win)
        banks.append(machine.bank_id if is_game else None)
        denominations.append(machine.denomination_cents if is_game else None)
        max_bets.append(event.wager == machine.max_bet_cents if is_game else None)
        levels.append(event.level)
        amounts.append(event.amount)
        pendings.append(event.pending)
    return columns


def _insert_postgresql(events: list[ParsedEvent], *, touch: bool) -> dict[tuple[int, int], int]:
    if not events:
        return {}
    connection.ensure_connection()
    # Server-side binding: the arrays travel as parameters instead of being quoted into the statement's
    # text, which Django's default client-side cursor does in Python (a sixth of a request's time).
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(_INSERT_AND_TOUCH if touch else _INSERT, _columns(events))
        return {(machine_id, seq): pk for machine_id, seq, pk in cursor.fetchall()}


def _insert_generic(events: list[ParsedEvent], *, received_at: datetime) -> dict[tuple[int, int], int]:
    rows = []
    for event, values in zip(events, zip(*_columns(events), strict=True), strict=True):
        fields = dict(zip(_FIELDS, values, strict=True))
        fields["payload"] = event.payload  # the model field encodes it
        rows.append(MachineEvent(received_at=received_at, **fields))
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
