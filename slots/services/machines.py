"""What events do to their machines: last seen, last game, condition flags, back in service; and the
beat job that takes silent machines offline."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Case, F, Q, Value, When
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from floor.models import SignificantEvent
from floor.services.significant import significant_events_record
from slots.models import MachineAlert, MachineEvent, OfflinePeriod, SlotMachine
from slots.selectors import machines_last_seq
from slots.services.parsing import ParsedEvent
from slots.services.vocabulary import STATUS_CLEARS_TILT, STATUS_FLAGS, STATUS_SIGNIFICANT

_FLAGS = ("door_open", "tilted", "handpay_locked", "powered")


def machines_touch(events: list[ParsedEvent], *, now: datetime, lock_all: bool) -> None:
    """Moves last_seen (and last_game_at for games) of every machine with accepted events, once per
    machine, and brings offline machines back in service; applies status events to the flags.

    Rows are locked in primary-key order first whenever two requests could otherwise lock the same
    machines in different orders (several machines in the batch) or when the caller needs the rows
    locked for the rest of the transaction (``lock_all``: meters, status).
    """
    machine_ids = sorted({event.machine.id for event in events})
    statuses: dict[int, list[ParsedEvent]] = defaultdict(list)
    last_game: dict[int, datetime] = {}
    for event in events:
        if event.type == MachineEvent.Type.GAME:
            machine_id = event.machine.id
            if machine_id not in last_game or event.at > last_game[machine_id]:
                last_game[machine_id] = event.at
        elif event.type == MachineEvent.Type.STATUS:
            statuses[event.machine.id].append(event)
    current: dict[int, dict[str, Any]] = {}  # id -> the row's id, status_seq and _FLAGS
    if lock_all or statuses or len(machine_ids) > 1:
        rows = (
            SlotMachine.objects.select_for_update(no_key=connection.features.has_select_for_no_key_update)
            .filter(id__in=machine_ids)
            .order_by("id")
            .values("id", "status_seq", *_FLAGS)
        )
        current = {row["id"]: row for row in rows}
    _machines_seen(machine_ids, last_game, now)
    first_seqs: dict[int, int] = {}
    for event in events:
        first_seqs[event.machine.id] = min(event.seq, first_seqs.get(event.machine.id, event.seq))
    offline_periods_close(first_seqs, now)
    for machine_id, status_events in statuses.items():
        flags = _flags_after(current[machine_id], status_events)
        if flags:
            SlotMachine.objects.filter(id=machine_id).update(**flags)
    significant_events_record(_status_significant(statuses))


# On PostgreSQL one statement with the machines and their last games as two arrays: the ORM's CASE of one
# WHEN per machine cost three quarters of a 50-machine gateway post (building and resolving the
# expressions, 57 of its 74 ms, cProfile). The rows are already locked in id order when there are several.
_SEEN = (
    "UPDATE slots_slotmachine AS m SET last_seen = GREATEST(m.last_seen, %s), "
    "last_game_at = GREATEST(m.last_game_at, v.game_at), "
    "status = CASE WHEN m.status = 'offline' THEN 'in_service' ELSE m.status END "
    "FROM unnest(%s::bigint[], %s::timestamptz[]) AS v(id, game_at) WHERE m.id = v.id"
)


def _machines_seen(machine_ids: list[int], last_game: dict[int, datetime], now: datetime) -> None:
    """Moves last_seen to ``now`` and last_game_at to each machine's ``last_game`` (never back: GREATEST
    skips NULLs), and brings offline machines back in service (an out-of-service one stays so)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_SEEN, [now, machine_ids, [last_game.get(pk) for pk in machine_ids]])
        return
    updates: dict[str, Any] = {  # field -> expression
        "last_seen": Greatest(Coalesce(F("last_seen"), Value(now)), Value(now)),
        "status": Case(
            When(status=SlotMachine.Status.OFFLINE, then=Value(SlotMachine.Status.IN_SERVICE)),
            default=F("status"),
        ),
    }
    if last_game:
        game_at = Case(*(When(id=pk, then=Value(at)) for pk, at in last_game.items()), default=None)
        updates["last_game_at"] = Case(
            When(Q(id__in=list(last_game)), then=Greatest(Coalesce(F("last_game_at"), game_at), game_at)),
            default=F("last_game_at"),
        )
    SlotMachine.objects.filter(id__in=machine_ids).update(**updates)


def _status_significant(statuses: dict[int, list[ParsedEvent]]) -> list[SignificantEvent]:
    """The significant-events rows of the accepted status events (door, power, tilt, handpay), one per
    event at the machine's own time, whatever order they came in: written with the batch, in one INSERT."""
    rows = []
    for events in statuses.values():
        for event in events:
            assert event.status is not None  # status events always carry one (parsing.py)
            kind, description = STATUS_SIGNIFICANT[event.status]
            rows.append(
                SignificantEvent(
                    kind=kind,
                    venue_id=event.machine.venue_id,
                    at=event.at,
                    subject=event.machine.asset_number,
                    machine_id=event.machine.id,
                    detail=description,
                    reference=f"seq {event.seq}",
                )
            )
    return rows


def _flags_after(row: dict[str, Any], events: list[ParsedEvent]) -> dict[str, bool | int]:
    """The flag values after the status events newer than the last one applied, in seq order."""
    applied_seq = row["status_seq"] or 0
    newer = sorted((event for event in events if event.seq > applied_seq), key=lambda event: event.seq)
    if not newer:
        return {}
    flags: dict[str, bool | int] = {name: row[name] for name in _FLAGS}
    for event in newer:
        # These are status events, and _status_parse gave every one its status.
        assert event.status is not None
        flag, value = STATUS_FLAGS[event.status]
        flags[flag] = value
        if event.status == STATUS_CLEARS_TILT:
            flags["tilted"] = False
    flags["status_seq"] = newer[-1].seq
    return flags


def machines_mark_offline(*, now: datetime | None = None) -> int:
    """Machines in service that have been silent for MACHINE_OFFLINE_AFTER_SECONDS go offline (out of
    the progressives until their next event); returns how many. A machine never heard from counts as
    silent.

    Rows are locked in id order, like the events API locks them, and rows an events request holds are
    skipped: that machine is talking right now, so it is not silent.
    """
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.MACHINE_OFFLINE_AFTER_SECONDS)
    with transaction.atomic():
        silent = dict(
            SlotMachine.objects.select_for_update(skip_locked=True)
            .filter(Q(last_seen__lt=cutoff) | Q(last_seen__isnull=True), status=SlotMachine.Status.IN_SERVICE)
            .order_by("id")
            .values_list("id", "last_seen")
        )
        marked = SlotMachine.objects.filter(id__in=list(silent)).update(status=SlotMachine.Status.OFFLINE)
        _offline_periods_open(silent, now)
        _offline_significant(silent, now)
    return marked


def _offline_significant(silent: dict[int, datetime | None], now: datetime) -> None:
    """One "machine offline" row per machine just marked, in one INSERT (one more query per beat)."""
    if not silent:
        return
    machines = SlotMachine.objects.filter(id__in=list(silent)).values_list(
        "id", "asset_number", "room__venue_id"
    )
    significant_events_record(
        SignificantEvent(
            kind=SignificantEvent.Kind.OFFLINE,
            venue_id=venue_id,
            at=now,
            subject=asset,
            machine_id=pk,
            detail=_offline_detail(silent[pk]),
        )
        for pk, asset, venue_id in machines.order_by("id")
    )


def _offline_detail(last_seen: datetime | None) -> str:
    heard = f"{last_seen.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC" if last_seen else "never"
    return f"Silent past the offline limit (last heard {heard}): out of play until heard again."


def _offline_periods_open(silent: dict[int, datetime | None], now: datetime) -> None:
    """Each machine just marked offline starts an offline period (out of play from ``now``) and raises a
    ``machine_offline`` alert with its time and when it was last heard (``seq``: its last event's)."""
    if not silent:
        return
    last_seqs = machines_last_seq(list(silent))
    OfflinePeriod.objects.bulk_create(OfflinePeriod(machine_id=pk, started_at=now) for pk in silent)
    alerts = []
    for pk, last_seen in silent.items():
        heard = last_seen.isoformat() if last_seen else None
        alerts.append(
            MachineAlert(
                machine_id=pk,
                kind=MachineAlert.Kind.MACHINE_OFFLINE,
                seq=last_seqs.get(pk, 0),
                at=now,
                detail=f"Offline at {now.isoformat()}, last heard {heard or 'never'}: out of play (no "
                "contribution, no linked win) until it is heard again.",
                payload={"offline_at": now.isoformat(), "last_seen": heard},
            )
        )
    MachineAlert.objects.bulk_create(alerts)


def offline_periods_close(first_seqs: dict[int, int], now: datetime) -> None:
    """Machines heard again (their first accepted event's seq in ``first_seqs``) end their open offline
    period at ``now`` and raise a ``machine_back`` alert with both times. The single-statement insert does
    the same in SQL (``storage._INSERT_AND_TOUCH``)."""
    periods = list(
        OfflinePeriod.objects.filter(machine_id__in=list(first_seqs), ended_at__isnull=True).annotate(
            asset=F("machine__asset_number"), venue_id=F("machine__room__venue_id")
        )
    )
    if not periods:
        return
    back_from = now - timedelta(seconds=settings.MACHINE_BACK_GRACE_SECONDS)  # the event's own moment
    ends = [(period, max(period.started_at, back_from), first_seqs[period.machine_id]) for period in periods]
    for period, ended_at, ended_seq in ends:
        period.ended_at, period.ended_seq = ended_at, ended_seq
    OfflinePeriod.objects.bulk_update(periods, ["ended_at", "ended_seq"])
    MachineAlert.objects.bulk_create(
        MachineAlert(
            machine_id=period.machine_id,
            kind=MachineAlert.Kind.MACHINE_BACK,
            seq=ended_seq,
            at=ended_at,
            detail=f"Heard again at {now.isoformat()} (seq {ended_seq}), offline since "
            f"{period.started_at.isoformat()}; in play from {ended_at.isoformat()}.",
            payload={"offline_at": period.started_at.isoformat(), "back_at": ended_at.isoformat()},
        )
        for period, ended_at, ended_seq in ends
    )
    # Every period here was just ended (ended_at and ended_seq set by the loop above).
    significant_events_record(
        SignificantEvent(
            kind=SignificantEvent.Kind.ONLINE,
            venue_id=period.venue_id,
            at=cast(datetime, period.ended_at),
            subject=period.asset,
            machine_id=period.machine_id,
            detail=online_detail(cast(int, period.ended_seq), period.started_at),
            reference=f"seq {period.ended_seq}",
        )
        for period in periods
    )


def online_detail(seq: int, offline_since: datetime) -> str:
    """What the register says of a machine back online; storage._INSERT_AND_TOUCH writes the same in SQL."""
    return f"Heard again (seq {seq}); offline since {offline_since.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC."
