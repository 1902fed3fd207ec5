"""Stores a batch of validated events once each: new ones inserted, the rest split into duplicates
(same content) and conflicts (same seq, other content).

PostgreSQL takes the whole batch in ONE multi-row ``INSERT ... ON CONFLICT (machine_id, seq) DO NOTHING
RETURNING``: the unique index settles races between concurrent requests, and the rows it did not return are
looked up in one more query to tell duplicates from conflicts. Rows are inserted in (machine, seq) order so
two requests carrying the same events wait on each other instead of deadlocking. Other databases (the
embedded SQLite default) serialise writers, so a read of the existing rows followed by bulk_create is exact.
"""

from __future__ import annotations

import functools
from datetime import datetime
from functools import reduce
from operator import or_
from typing import Any, TypedDict

import orjson
import psycopg
from django.conf import settings
from django.db import connection
from django.db.models import Q

from slots.models import MachineEvent
from slots.services.parsing import KeyRow, ParsedEvent

_COLUMNS = (
    "machine_id, seq, type, at, received_at, digest, payload, wager_cents, win_cents, bank_id, "
    "denomination_cents, is_max_bet, level_id, amount_cents, pending"
)
# The batch travels as ONE json parameter, a list of row objects that PostgreSQL's C json parser turns
# into rows: building it is one orjson call, where one array parameter per column cost the driver a
# Python-level dump of every element (a sixth of a request's time, measured with py-spy).
_RECORDS_FROM = (
    "SELECT u.machine_id, u.seq, u.type, u.at, now(), u.digest, u.payload, u.wager_cents, u.win_cents, "
    "u.bank_id, u.denomination_cents, u.is_max_bet, u.level_id, u.amount_cents, u.pending "
    "FROM json_to_recordset(%s::json) AS u(machine_id bigint, seq bigint, type smallint, at timestamptz, "
    "digest varchar, payload jsonb, wager_cents bigint, win_cents bigint, bank_id bigint, "
    "denomination_cents integer, is_max_bet boolean, level_id bigint, amount_cents bigint, pending boolean)"
)
_RECORDS_ORDER = " ORDER BY u.machine_id, u.seq"
_RECORDS = _RECORDS_FROM + _RECORDS_ORDER
_INSERT = (
    f"INSERT INTO slots_machineevent ({_COLUMNS}) {_RECORDS} "
    "ON CONFLICT (machine_id, seq) DO NOTHING RETURNING machine_id, seq, id"
)
# The same insert, and in the same statement the machine's last_seen/last_game_at move and an offline
# machine comes back in service, ending its offline period with a ``machine_back`` alert and a
# significant-events row (machines_touch and offline_periods_close, for a batch of one machine's games
# and jackpots; the period's lookup is one probe of its partial unique index, nothing found on a
# machine in play). One statement is one
# transaction: no BEGIN/COMMIT round trips on the hot path. GREATEST skips NULLs.
# The caller's key is checked in the same statement (slots.services.auth): the rows go in only while the
# key's row is active, and the first column of every row returned says whether it was. {key_ok} is
# _KEY_ACTIVE on a model's table (KeyRow), never input, or true for a caller inside the process
# (_insert_and_touch).
_KEY_ACTIVE = "EXISTS (SELECT 1 FROM {table} WHERE id = %s AND revoked_at IS NULL)"
_INSERT_AND_TOUCH = (
    "WITH key_ok AS (SELECT {key_ok} AS ok), "
    f"inserted AS (INSERT INTO slots_machineevent ({_COLUMNS}) "
    f"{_RECORDS_FROM} WHERE (SELECT ok FROM key_ok){_RECORDS_ORDER} "
    "ON CONFLICT (machine_id, seq) DO NOTHING RETURNING machine_id, seq, id, type, at), "
    "seen AS (SELECT machine_id, max(at) FILTER (WHERE type = 1) AS game_at, min(seq) AS first_seq "
    "FROM inserted GROUP BY machine_id), "
    "touched AS (UPDATE slots_slotmachine AS m SET last_seen = GREATEST(m.last_seen, now()), "
    "last_game_at = GREATEST(m.last_game_at, seen.game_at), "
    "status = CASE WHEN m.status = 'offline' THEN 'in_service' ELSE m.status END "
    "FROM seen WHERE m.id = seen.machine_id RETURNING m.id), "
    "back AS (UPDATE slots_offlineperiod AS o SET ended_at = GREATEST(o.started_at, now() - "
    f"interval '{int(settings.MACHINE_BACK_GRACE_SECONDS)} seconds'), ended_seq = seen.first_seq "
    "FROM seen WHERE o.machine_id = seen.machine_id AND o.ended_at IS NULL "
    "RETURNING o.machine_id, o.started_at, o.ended_at, o.ended_seq), "
    "alerted AS (INSERT INTO slots_machinealert (machine_id, kind, seq, at, detail, payload) "
    "SELECT machine_id, 'machine_back', ended_seq, ended_at, "
    "format('Heard again at %%s (seq %%s), offline since %%s.', ended_at, ended_seq, started_at), "
    "jsonb_build_object('offline_at', started_at, 'back_at', ended_at) FROM back), "
    # The significant-events register's "machine back online" row, as machines.online_detail words it.
    "registered AS (INSERT INTO floor_significantevent (venue_id, at, kind, subject, machine_id, detail, "
    "reference) SELECT r.venue_id, b.ended_at, 'online', m.asset_number, b.machine_id, "
    "format('Heard again (seq %%s); offline since %%s UTC.', b.ended_seq, "
    "to_char(b.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')), 'seq ' || b.ended_seq "
    "FROM back b JOIN slots_slotmachine m ON m.id = b.machine_id JOIN floor_room r ON r.id = m.room_id) "
    "SELECT k.ok, i.machine_id, i.seq, i.id FROM key_ok k LEFT JOIN inserted i ON true"
)


class KeyRevoked(Exception):
    """The caller's key was found revoked or gone by the guarded insert: nothing was stored."""


def events_store(
    events: list[ParsedEvent], *, received_at: datetime, touch: bool = False, key: KeyRow | None = None
) -> tuple[list[ParsedEvent], dict[tuple[int, int], str]]:
    """Inserts what is new; returns the inserted events (``stored_id`` set) and the digest already
    stored for every other (machine_id, seq) of the batch. With ``touch`` (PostgreSQL only, one machine's
    games and jackpots) the same statement checks that the caller's ``key`` is active (KeyRevoked if not,
    nothing stored) and does what machines_touch would."""
    events = sorted(events, key=lambda event: event.key)
    if connection.vendor == "postgresql":
        inserted_ids = _insert_postgresql(events, touch=touch, key=key)
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


class EventRow(TypedDict):
    """An event as the events table's columns (but received_at, the database's now())."""

    machine_id: int
    seq: int
    type: int
    at: datetime
    digest: str
    payload: orjson.Fragment | dict[str, Any]  # encoded once for PostgreSQL; the model field encodes a dict
    wager_cents: int | None
    win_cents: int | None
    bank_id: int | None
    denomination_cents: int | None
    is_max_bet: bool | None
    level_id: int | None
    amount_cents: int | None
    pending: bool


def _row(event: ParsedEvent) -> EventRow:
    """The event as the events table's columns (but received_at, the database's now())."""
    machine = event.machine
    is_game = event.type == MachineEvent.Type.GAME
    return {
        "machine_id": machine.id,
        "seq": event.seq,
        "type": event.type,
        "at": event.at,
        "digest": event.digest,
        "payload": orjson.Fragment(event.payload_json),
        "wager_cents": event.wager,
        "win_cents": event.win,
        "bank_id": machine.bank_id if is_game else None,
        "denomination_cents": machine.denomination_cents if is_game else None,
        "is_max_bet": event.wager == machine.max_bet_cents if is_game else None,
        "level_id": event.level,
        "amount_cents": event.amount,
        "pending": event.pending,
    }


def _insert_postgresql(
    events: list[ParsedEvent], *, touch: bool, key: KeyRow | None
) -> dict[tuple[int, int], int]:
    if not events:
        return {}
    records = orjson.dumps([_row(event) for event in events]).decode()
    connection.ensure_connection()
    # Server-side binding: the document travels as a parameter instead of being quoted into the
    # statement's text by Django's client-side cursor.
    with psycopg.Cursor(connection.connection) as cursor:
        if not touch:
            cursor.execute(_INSERT, [records])
            return {(machine_id, seq): pk for machine_id, seq, pk in cursor.fetchall()}
        if key is None:
            cursor.execute(_insert_and_touch(None), [records])
        else:
            cursor.execute(_insert_and_touch(key.table), [key.id, records])
        rows = cursor.fetchall()
    if not rows[0][0]:
        raise KeyRevoked
    return {(machine_id, seq): pk for _ok, machine_id, seq, pk in rows if pk is not None}


@functools.cache
def _insert_and_touch(key_table: str | None) -> str:
    """The single statement checking a key of ``key_table`` (a model's table), or none: built once each."""
    if key_table is None:
        return _INSERT_AND_TOUCH.replace("{key_ok}", "true")
    return _INSERT_AND_TOUCH.replace(
        "{key_ok}", _KEY_ACTIVE.replace("{table}", connection.ops.quote_name(key_table))
    )


def _insert_generic(events: list[ParsedEvent], *, received_at: datetime) -> dict[tuple[int, int], int]:
    rows = []
    for event in events:
        fields = _row(event)
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
