"""Reads of the slots app."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from django.db import connection
from django.db.models import OuterRef, Subquery

from floor.models import Room
from slots.models import MachineEvent, OfflinePeriod, SlotMachine
from slots.services.parsing import MachineInfo

# Written out rather than built by the ORM on every request: this runs once per events request, where
# compiling the equivalent queryset cost more than executing it.
_MACHINES_SQL = (
    "SELECT m.id, m.asset_number, r.venue_id, m.bank_id, m.denomination_cents, m.min_bet_cents, "
    f"m.max_bet_cents, m.meter_digits, m.status FROM {SlotMachine._meta.db_table} m "
    f"JOIN {Room._meta.db_table} r ON r.id = m.room_id WHERE m.asset_number IN ({{}})"
)


def machines_by_asset(asset_numbers: Iterable[str]) -> dict[str, MachineInfo]:
    """The machines named in a batch, in one query."""
    # An asset number is at most 16 characters; NUL cannot even be sent to PostgreSQL.
    asset_numbers = [asset for asset in set(asset_numbers) if len(asset) <= 16 and "\x00" not in asset]
    if not asset_numbers:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_MACHINES_SQL.format(", ".join(["%s"] * len(asset_numbers))), asset_numbers)
        return {row[1]: MachineInfo(*row) for row in cursor.fetchall()}


# An offline period as [start, end) in integer microseconds since the epoch, as the engine reads ``at``;
# end None: the machine is still offline.
OfflineSpan = tuple[int, int | None]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def offline_spans(machine_ids: Iterable[int], since_us: int) -> dict[int, list[OfflineSpan]]:
    """The offline periods of ``machine_ids`` still open or ending after ``since_us``, by machine (one
    query; none for machines in play, the common case)."""
    since = _EPOCH + since_us * _MICROSECOND
    periods = OfflinePeriod.objects.filter(machine_id__in=list(machine_ids)).exclude(ended_at__lte=since)
    spans: dict[int, list[OfflineSpan]] = {}
    for machine_id, start, end in periods.values_list("machine_id", "started_at", "ended_at"):
        span = ((start - _EPOCH) // _MICROSECOND, None if end is None else (end - _EPOCH) // _MICROSECOND)
        spans.setdefault(machine_id, []).append(span)
    return spans


def offline_at(spans: list[OfflineSpan], at_us: int) -> bool:
    """Whether ``at_us`` lies inside one of the ``spans``: the machine was marked offline then."""
    return any(start <= at_us and (end is None or at_us < end) for start, end in spans)


def machines_last_seq(machine_ids: list[int]) -> dict[int, int]:
    """The highest event seq stored for each machine (absent: none yet). A gateway that lost its store
    numbers its next events from there instead of from 1 (seq_conflict). Per machine, the last entry of
    the (machine, seq) unique index (a backward scan, LIMIT 1): a GROUP BY max would read every event of
    the venue's machines, millions on a floor that has played a while."""
    last = MachineEvent.objects.filter(machine_id=OuterRef("pk")).order_by("-seq").values("seq")[:1]
    rows = SlotMachine.objects.filter(id__in=machine_ids).annotate(last=Subquery(last))
    return {machine_id: seq for machine_id, seq in rows.values_list("id", "last") if seq is not None}
