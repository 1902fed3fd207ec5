"""Stores a batch of validated events once each: new ones inserted, the rest split into duplicates
(same content) and conflicts (same seq, other content).

PostgreSQL takes the whole batch in ONE multi-row ``INSERT ... ON CONFLICT (machine_id, seq) DO NOTHING
RETURNING``: the unique index settles races between concurrent requests, and the rows it did not return are
looked up in one more query to tell duplicates from conflicts. Rows are inserted in (machine, seq) order so
two requests carrying the same events wait on each other instead of deadlocking. Other databases (the
embedded SQLite default) serialise writers, so a read of the existing rows followed by bulk_create is exact.
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from collections.abc import Callable
from datetime import datetime
from functools import reduce
from operator import attrgetter, or_
from typing import Any

import psycopg
from django.conf import settings
from django.db import connection
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Q
from psycopg.types.string import BytesBinaryDumper

from common.pg_arrays import array_literal
from slots.models import MachineEvent
from slots.services.machine_map import MachinesChanged
from slots.services.machine_runs import Run, machine_runs, stored_before, stored_note
from slots.services.parsing import KeyRow, MachineInfo, ParsedEvent

# A request's rows reach PostgreSQL by binary COPY into this session's staging table, and one statement
# moves them into the events table. Before, they travelled as one JSON document that json_to_recordset
# turned into rows: PostgreSQL spent 75 µs of CPU a row that way, 57 µs staged (bench/results,
# 2026-11-27-events-stage.md), and the rows are encoded by psycopg's C code instead of a JSON dump. The
# statement empties the stage as it reads it (a DELETE ... RETURNING), so a second batch in the same
# transaction never sees the first; ON COMMIT DELETE ROWS gives the space back, since nothing vacuums a
# temporary table. The payload is staged as text and parsed into jsonb by the move, as COPY would.
_STAGE = "pg_temp.slots_event_stage"
_STAGE_COLUMNS = (
    ("machine_id", "bigint", "int8"),
    ("seq", "bigint", "int8"),
    ("type", "smallint", "int2"),
    ("at", "timestamptz", "timestamptz"),
    ("digest", "text", "text"),
    ("payload", "text", "text"),
    ("wager_cents", "bigint", "int8"),
    ("win_cents", "bigint", "int8"),
    ("bank_id", "bigint", "int8"),
    ("denomination_cents", "integer", "int4"),
    ("is_max_bet", "boolean", "bool"),
    ("level_id", "bigint", "int8"),
    ("amount_cents", "bigint", "int8"),
    ("pending", "boolean", "bool"),
)
_STAGE_CREATE = (
    "CREATE TEMP TABLE IF NOT EXISTS slots_event_stage ("
    + ", ".join(f"{name} {sql_type}" for name, sql_type, _ in _STAGE_COLUMNS)
    + ") ON COMMIT DELETE ROWS"
)
_STAGE_COPY = f"COPY {_STAGE} FROM STDIN (FORMAT BINARY)"
_STAGE_TYPES = [copy_type for _, _, copy_type in _STAGE_COLUMNS]
_STAGED = f"staged AS (DELETE FROM {_STAGE} RETURNING *)"
# The columns a batch writes (received_at is the database's now()), in the stage's order, and what the move
# selects for each: the stage's column, the payload's text parsed into jsonb.
_ROW_FIELDS = tuple(name for name, _, _ in _STAGE_COLUMNS)
_COLUMNS = ", ".join((*_ROW_FIELDS, "received_at"))
_RECORDS_FROM = (
    "SELECT "
    + ", ".join("u.payload::jsonb" if name == "payload" else f"u.{name}" for name in _ROW_FIELDS)
    + ", now() FROM staged AS u"
)
_RECORDS_ORDER = " ORDER BY u.machine_id, u.seq"
_RECORDS = _RECORDS_FROM + _RECORDS_ORDER
_INSERT = (
    f"WITH {_STAGED} INSERT INTO slots_machineevent ({_COLUMNS}) {_RECORDS} "
    "ON CONFLICT (machine_id, seq) DO NOTHING RETURNING machine_id, seq, id"
)
# The same insert, and in the same statement each machine's last_seen/last_game_at move and an offline
# machine comes back in service, ending its offline period with a ``machine_back`` alert and a
# significant-events row (machines_touch and offline_periods_close, for a batch of games and jackpots of
# one machine or of a gateway's many; the period's lookup is one probe of its partial unique index a
# machine, nothing found on a machine in play). One statement is one transaction: no BEGIN/COMMIT round
# trips on the hot path. GREATEST skips NULLs.
# The caller's key is checked in the same statement (slots.services.auth): the rows go in only while the
# key's row is active, and the first column of every row returned says whether it was. {key_ok} is
# _KEY_ACTIVE on a model's table (KeyRow), never input, or true for a caller inside the process
# (_insert_and_touch).
_KEY_ACTIVE = "EXISTS (SELECT 1 FROM {table} WHERE id = %s AND revoked_at IS NULL)"
# And the machines are still what the batch was checked against (machines this process remembered,
# slots.services.machine_map): ``locked`` finds each by its facts as validation read them (the arrays of
# _machine_facts, one element a machine, but its status, which only had to let it play) and locks its row;
# the second column says whether it found them all. ORDER BY ... FOR NO KEY UPDATE locks the rows in the
# order it returns them, so statements on overlapping machines (a gateway's retry beside its next batch)
# wait on each other instead of deadlocking, as the transaction path's lock in id order does; and a row whose
# lock was waited for is read as committed once the lock is held (``was_status``: a beat that marked the
# machine offline meanwhile shows there, though the period it opened is not in this statement's snapshot).
_LOCKED = (
    "locked AS (SELECT m.id, m.status AS was_status FROM slots_slotmachine m "
    "JOIN floor_room r ON r.id = m.room_id JOIN unnest(%s::bigint[], %s::text[], %s::bigint[], %s::bigint[], "
    "%s::int[], %s::int[], %s::int[], %s::int[]) AS f(id, asset_number, venue_id, bank_id, "
    "denomination_cents, min_bet_cents, max_bet_cents, meter_digits) ON f.id = m.id "
    "WHERE m.asset_number = f.asset_number AND r.venue_id = f.venue_id "
    "AND m.bank_id IS NOT DISTINCT FROM f.bank_id AND m.denomination_cents = f.denomination_cents "
    "AND m.min_bet_cents = f.min_bet_cents AND m.max_bet_cents = f.max_bet_cents "
    "AND m.meter_digits = f.meter_digits AND m.status IN ('in_service', 'offline') "
    "ORDER BY m.id FOR NO KEY UPDATE OF m), "
    "machine_ok AS (SELECT count(*) = %s AS ok FROM locked)"
)
# An offline machine heard again: its open period ends (at the event's own moment, MACHINE_BACK_GRACE_SECONDS
# before now, never before it began) with a ``machine_back`` alert and the significant-events register's
# "machine back online" row (as machines.online_detail words it); ``seen`` gives each machine and its first
# accepted seq. One probe of the period's partial unique index; nothing found on a machine in play.
_BACK = (
    "back AS (UPDATE slots_offlineperiod AS o SET ended_at = GREATEST(o.started_at, now() - "
    f"interval '{int(settings.MACHINE_BACK_GRACE_SECONDS)} seconds'), ended_seq = seen.first_seq "
    "FROM seen WHERE o.machine_id = seen.machine_id AND o.ended_at IS NULL "
    "RETURNING o.machine_id, o.started_at, o.ended_at, o.ended_seq), "
    "alerted AS (INSERT INTO slots_machinealert (machine_id, kind, seq, at, detail, payload) "
    "SELECT machine_id, 'machine_back', ended_seq, ended_at, "
    "format('Heard again at %%s (seq %%s), offline since %%s.', ended_at, ended_seq, started_at), "
    "jsonb_build_object('offline_at', started_at, 'back_at', ended_at) FROM back), "
    "registered AS (INSERT INTO floor_significantevent (venue_id, at, kind, subject, machine_id, detail, "
    "reference) SELECT r.venue_id, b.ended_at, 'online', m.asset_number, b.machine_id, "
    "format('Heard again (seq %%s); offline since %%s UTC.', b.ended_seq, "
    "to_char(b.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')), 'seq ' || b.ended_seq "
    "FROM back b JOIN slots_slotmachine m ON m.id = b.machine_id JOIN floor_room r ON r.id = m.room_id) "
)
# Each machine of ``seen`` moved (last seen, last game, back in service from offline), with what its row was
# under the lock; and of those, the ones that were offline and whose period the statement's snapshot did not
# have (a beat's, committed while it waited for the row): _back_late ends them.
_TOUCHED = (
    "touched AS (UPDATE slots_slotmachine AS m SET last_seen = GREATEST(m.last_seen, now()), "
    "last_game_at = GREATEST(m.last_game_at, seen.game_at), "
    "status = CASE WHEN m.status = 'offline' THEN 'in_service' ELSE m.status END "
    "FROM seen JOIN locked AS l ON l.id = seen.machine_id WHERE m.id = seen.machine_id "
    "RETURNING m.id, l.was_status)"
)
_LATE = (
    "ARRAY(SELECT t.id FROM touched t WHERE t.was_status = 'offline' "
    "AND NOT EXISTS (SELECT 1 FROM back b WHERE b.machine_id = t.id))"
)
# The periods a beat opened while the single statement waited for their machines' rows (its third column
# names the machines), ended in the same transaction by a statement whose snapshot has them.
_BACK_LATE = (
    "WITH seen AS (SELECT * FROM unnest(%s::bigint[], %s::bigint[]) AS s(machine_id, first_seq)), "
    f"{_BACK} SELECT count(*) FROM back"
)
_INSERT_AND_TOUCH = (
    f"WITH {_STAGED}, key_ok AS (SELECT {{key_ok}} AS ok), {_LOCKED}, "
    f"inserted AS (INSERT INTO slots_machineevent ({_COLUMNS}) "
    f"{_RECORDS_FROM} WHERE (SELECT ok FROM key_ok) AND (SELECT ok FROM machine_ok){_RECORDS_ORDER} "
    "ON CONFLICT (machine_id, seq) DO NOTHING RETURNING machine_id, seq, id, type, at), "
    "seen AS (SELECT machine_id, max(at) FILTER (WHERE type = 1) AS game_at, min(seq) AS first_seq "
    "FROM inserted GROUP BY machine_id), "
    f"{_TOUCHED}, {_BACK} "
    f"SELECT k.ok, mo.ok, {_LATE}, i.machine_id, i.seq, i.id "
    "FROM key_ok k CROSS JOIN machine_ok mo LEFT JOIN inserted i ON true"
)
# The direct route (_copy_direct): the same checks, locks and moves of the machines, for a batch none of
# whose events is stored yet, before its rows are COPYed straight into the events table in the same
# transaction. ``seen`` is given (each machine, its last game's moment, its first seq), empty unless both
# checks pass; the statement also draws the rows' ids from the table's identity, as an INSERT would, so
# every stored event still knows its row.
_CHECK_AND_TOUCH = (
    f"WITH key_ok AS (SELECT {{key_ok}} AS ok), {_LOCKED}, "
    "seen AS (SELECT s.* FROM unnest(%s::bigint[], %s::timestamptz[], %s::bigint[]) "
    "AS s(machine_id, game_at, first_seq) WHERE (SELECT ok FROM key_ok) AND (SELECT ok FROM machine_ok)), "
    f"{_TOUCHED}, {_BACK} "
    f"SELECT k.ok, mo.ok, {_LATE}, now(), ARRAY(SELECT nextval(pg_get_serial_sequence("
    "'slots_machineevent', 'id')) FROM generate_series(1, %s)) FROM key_ok k CROSS JOIN machine_ok mo"
)
_DIRECT_COPY = f"COPY slots_machineevent (id, {_COLUMNS}) FROM STDIN (FORMAT BINARY)"
# The payload goes in jsonb's binary form, a version byte (1) and the JSON text (PostgreSQL's jsonb_recv),
# written as bytes: psycopg's own jsonb dumper is Python code called for every row, where bytes pass through
# its C code as they are. The text is orjson's, already checked to hold no NUL (parsing). psycopg's dumper
# for the bytea type is its DB-API ``Binary`` wrapper's, a Python call per row (0.18 µs a dump against 0.07
# for the C one); the COPY's cursor takes the C one for plain bytes instead (``_bytea_plain``, 2 µs a batch
# for the cursor's own copy of the map).
_JSONB_V1 = b"\x01"
_DIRECT_TYPES = [
    "int8",
    *("bytea" if name == "payload" else copy_type for name, _, copy_type in _STAGE_COLUMNS),
    "timestamptz",
]


# The events' unique key (machine, seq): the constraint that stops a direct COPY holding a stored event.
_EVENT_UNIQUE = "event_unique_machine_seq"


class KeyRevoked(Exception):
    """The caller's key was found revoked or gone by the guarded insert: nothing was stored."""


def events_store(
    events: list[ParsedEvent],
    *,
    received_at: datetime,
    touch: bool = False,
    key: KeyRow | None = None,
    machines: list[MachineInfo] | None = None,
) -> tuple[list[ParsedEvent], dict[tuple[int, int], str]]:
    """Inserts what is new; returns the inserted events (``stored_id`` set) and the digest already
    stored for every other (machine_id, seq) of the batch. With ``touch`` (PostgreSQL only, games and
    jackpots of ``machines``) the same statement checks that the caller's ``key`` is active (KeyRevoked
    if not) and that every machine is still as in ``machines`` (MachinesChanged if not), storing nothing
    unless both hold, and does what machines_touch would."""
    events = sorted(events, key=lambda event: event.key)
    if connection.vendor == "postgresql":
        inserted_ids = _insert_postgresql(events, touch=touch, key=key, machines=machines)
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


def _row_values(event: ParsedEvent, payload: object) -> tuple[object, ...]:
    """The event as the values of _ROW_FIELDS, with ``payload`` as given (text for the stage, a dict for
    the model field, which encodes it)."""
    machine = event.machine
    bank_id: int | None = None
    denomination: int | None = None
    is_max_bet: bool | None = None
    if event.type == MachineEvent.Type.GAME:
        bank_id, denomination = machine.bank_id, machine.denomination_cents
        is_max_bet = event.wager == machine.max_bet_cents
    return (
        machine.id,
        event.seq,
        event.type,
        event.at,
        event.digest,
        payload,
        event.wager,
        event.win,
        bank_id,
        denomination,
        is_max_bet,
        event.level,
        event.amount,
        event.pending,
    )


# The psycopg connections whose session has the stage, created outside a transaction (so it lasts as long
# as the session: one created inside a transaction that rolls back is gone, and is created again).
_staged_sessions: weakref.WeakSet[psycopg.Connection] = weakref.WeakSet()


def _stage_ensure(raw: psycopg.Connection, *, in_transaction: bool) -> None:
    if raw in _staged_sessions:
        return
    raw.execute(_STAGE_CREATE)
    # One made inside a transaction is gone if that rolls back (a test's, or one whose on_commit callbacks
    # ran anyway): only one made outside is remembered.
    if not in_transaction:
        _staged_sessions.add(raw)


def stage_on_connect(sender: object, connection: BaseDatabaseWrapper, **kwargs: object) -> None:
    """connection_created receiver: a new PostgreSQL session gets its stage at once, outside any
    transaction, so that batches stored inside one (a gateway's, with meters or status) find it made and
    remembered instead of making it again each time."""
    if connection.vendor == "postgresql" and not connection.in_atomic_block:
        _stage_ensure(connection.connection, in_transaction=False)


def _insert_postgresql(
    events: list[ParsedEvent], *, touch: bool, key: KeyRow | None, machines: list[MachineInfo] | None
) -> dict[tuple[int, int], int]:
    if not events:
        return {}
    connection.ensure_connection()
    raw = connection.connection
    in_transaction = connection.in_atomic_block
    if touch:
        if not machines:
            raise ValueError("the single statement checks the machines it writes for")
        runs = machine_runs(events)
        # One machine's batch only: a gateway's of many machines spends PostgreSQL most on their rows (the
        # locks, the moves), not on its one event each, and the bench found no gain for it, while the
        # direct route's per-machine columns cost the server more (bench/results/2026-11-29-direct-copy.md).
        if not in_transaction and len(runs) == 1 and not stored_before(runs):
            direct = _copy_direct(raw, events, runs, key, machines)
            if direct is not None:
                stored_note(runs)
                return direct
        statement, then = _insert_and_touch(None if key is None else key.table), _back_late
        params: list[object] = [] if key is None else [key.id]
        params += _machine_facts(machines)
    else:
        statement, params, then = _INSERT, [], None
    _stage_ensure(raw, in_transaction=in_transaction)
    try:
        rows = _stage_and_move(raw, events, statement, params, in_transaction=in_transaction, then=then)
    except (psycopg.errors.UndefinedTable, psycopg.errors.InvalidSchemaName):
        if in_transaction or raw not in _staged_sessions:
            raise
        # The session lost its stage (DISCARD TEMP or a DROP by hand): nothing was stored, make it again.
        _staged_sessions.discard(raw)
        _stage_ensure(raw, in_transaction=False)
        rows = _stage_and_move(raw, events, statement, params, in_transaction=False, then=then)
    if not touch:
        return {(machine_id, seq): pk for machine_id, seq, pk in rows}
    key_ok, machine_ok = rows[0][:2]
    if not key_ok:
        raise KeyRevoked
    if not machine_ok:
        raise MachinesChanged
    stored_note(runs)
    return {(machine_id, seq): pk for _key_ok, _ok, _late, machine_id, seq, pk in rows if pk is not None}


def _back_late(cursor: psycopg.Cursor[Any], rows: list[tuple[Any, ...]]) -> None:
    """After the single statement, in its transaction: ends the offline periods a beat opened while the
    statement waited for their machines' rows (its third column), which its snapshot could not see."""
    late = set(rows[0][2]) if rows else set()
    if not late:
        return
    first_seqs: dict[int, int] = {}
    for _key_ok, _ok, _late, machine_id, seq, pk in rows:
        if pk is not None and machine_id in late:
            first_seqs[machine_id] = min(seq, first_seqs.get(machine_id, seq))
    _periods_end_late(cursor, first_seqs)


def _periods_end_late(cursor: psycopg.Cursor[Any], first_seqs: dict[int, int]) -> None:
    """Ends the open period of each machine of ``first_seqs`` (machine id -> its first stored seq)."""
    cursor.execute(_BACK_LATE, [list(first_seqs), list(first_seqs.values())])


def _copy_direct(
    raw: psycopg.Connection,
    events: list[ParsedEvent],
    runs: dict[int, Run],
    key: KeyRow | None,
    machines: list[MachineInfo],
) -> dict[tuple[int, int], int] | None:
    """The single statement's work for a batch none of whose events is stored yet, nearer COPY's cost:
    _CHECK_AND_TOUCH checks the key and the machines, locks and moves them and draws the rows' ids, then
    the rows are COPYed straight into the events table, one transaction. The staged move spent PostgreSQL
    46 µs a row, this 32 (COPY alone 26): no stage written and emptied, no speculative insertion.

    None when an event of the batch is stored already (a retry, a gateway's repeat): the unique key stops
    the COPY, the transaction rolls back with everything it did, and the staged move sorts the batch into
    new events, duplicates and conflicts. KeyRevoked or MachinesChanged as the single statement."""
    params: list[object] = [] if key is None else [key.id]
    params += _machine_facts(machines)
    params += map(
        array_literal,
        (runs, (run.game_at for run in runs.values()), (run.first_seq for run in runs.values())),
    )
    params.append(len(events))
    try:
        with raw.transaction(), psycopg.Cursor(raw) as cursor:
            cursor.execute(_check_and_touch(None if key is None else key.table), params, prepare=True)
            # One row always: key_ok and machine_ok are one row each.
            [(key_ok, machine_ok, late, now, ids)] = cursor.fetchall()
            if not key_ok:
                raise KeyRevoked
            if not machine_ok:
                raise MachinesChanged
            _bytea_plain(cursor)
            with cursor.copy(_DIRECT_COPY) as copy:
                copy.set_types(_DIRECT_TYPES)
                for row_id, event in zip(ids, events, strict=True):
                    copy.write_row((row_id, *_row_values(event, _JSONB_V1 + event.payload_json), now))
            if late:
                _periods_end_late(cursor, {machine_id: runs[machine_id].first_seq for machine_id in late})
    except psycopg.errors.UniqueViolation as violation:
        if violation.diag.constraint_name != _EVENT_UNIQUE:
            raise
        return None
    return {event.key: row_id for row_id, event in zip(ids, events, strict=True)}


def _bytea_plain(cursor: psycopg.Cursor[Any]) -> None:
    """The cursor's bytea dumper is the one for plain bytes: psycopg registers the DB-API ``Binary``
    wrapper's last, whose dump is Python. Only this cursor's map changes (psycopg copies it on write)."""
    cursor.adapters.register_dumper(bytes, BytesBinaryDumper)


# What validation read of a machine (but its status, which only had to let it play), in _LOCKED's order.
_FACTS = attrgetter(
    "id",
    "asset_number",
    "venue_id",
    "bank_id",
    "denomination_cents",
    "min_bet_cents",
    "max_bet_cents",
    "meter_digits",
)


def _machine_facts(machines: list[MachineInfo]) -> list[object]:
    """_LOCKED's parameters: each fact of the machines as an array, then how many machines there are."""
    return [*map(array_literal, zip(*map(_FACTS, machines), strict=True)), len(machines)]


def _stage_and_move(
    raw: psycopg.Connection,
    events: list[ParsedEvent],
    statement: str,
    params: list[object],
    *,
    in_transaction: bool,
    then: Callable[[psycopg.Cursor[Any], list[tuple[Any, ...]]], None] | None = None,
) -> list[tuple[Any, ...]]:
    """COPYs the events into the stage and runs ``statement``, which moves them, and ``then`` on its rows;
    returns them. Outside Django's transaction the three are one transaction of their own: one commit."""
    with contextlib.nullcontext() if in_transaction else raw.transaction(), psycopg.Cursor(raw) as cursor:
        with cursor.copy(_STAGE_COPY) as copy:
            copy.set_types(_STAGE_TYPES)
            for event in events:
                copy.write_row(_row_values(event, event.payload_json.decode()))
        # Prepared once a session (config.settings lets psycopg): PostgreSQL parsed and planned this many-CTE
        # statement for every batch. A 100-event post's PostgreSQL CPU, in process, median of eight
        # alternating rounds: 3.9 ms planned each time, 2.8 ms prepared.
        cursor.execute(statement, params, prepare=True)
        rows = cursor.fetchall()
        if then is not None:
            then(cursor, rows)
        return rows


@functools.cache
def _insert_and_touch(key_table: str | None) -> str:
    """The single statement checking a key of ``key_table`` (a model's table), or none: built once each."""
    return _key_check_fill(_INSERT_AND_TOUCH, key_table)


@functools.cache
def _check_and_touch(key_table: str | None) -> str:
    """The direct route's statement checking a key of ``key_table``, or none: built once each."""
    return _key_check_fill(_CHECK_AND_TOUCH, key_table)


def _key_check_fill(statement: str, key_table: str | None) -> str:
    if key_table is None:
        return statement.replace("{key_ok}", "true")
    return statement.replace("{key_ok}", _KEY_ACTIVE.replace("{table}", connection.ops.quote_name(key_table)))


def _insert_generic(events: list[ParsedEvent], *, received_at: datetime) -> dict[tuple[int, int], int]:
    rows = []
    for event in events:
        fields = dict(zip(_ROW_FIELDS, _row_values(event, event.payload), strict=True))
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
