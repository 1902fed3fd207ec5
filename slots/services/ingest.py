"""event_batch_ingest: one request's events validated, deduplicated and stored in one transaction
(or one statement)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypedDict

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from common.times import time_window
from slots import hooks
from slots.models import MachineAlert, MachineEvent
from slots.services.auth import principal_confirm, principal_refuse
from slots.services.engine_notify import engine_notifier
from slots.services.machine_map import (
    MachinesChanged,
    machine_map_confirm,
    machine_map_read,
    machine_map_refresh,
)
from slots.services.machines import machines_touch
from slots.services.meters import meters_apply
from slots.services.parsing import (
    EventRejected,
    MachineInfo,
    ParsedEvent,
    Principal,
    event_limits,
    event_parse,
)
from slots.services.storage import KeyRevoked, events_store


class Rejection(TypedDict):
    """One refused event of a request: its place in the request, the error code, a sentence."""

    index: int
    error: str
    detail: str


class IngestAnswer(TypedDict):
    """The events API's answer (docs/api.md)."""

    accepted: int
    duplicates: int
    rejected: list[Rejection]


@dataclass(slots=True)
class IngestResult:
    accepted: int = 0
    duplicates: int = 0
    rejected: list[Rejection] = field(default_factory=list)
    memory_resets: int = 0

    def as_dict(self) -> IngestAnswer:
        return {"accepted": self.accepted, "duplicates": self.duplicates, "rejected": self.rejected}


def event_batch_ingest(
    events: list[Any], *, principal: Principal, now: datetime | None = None
) -> IngestResult:
    """Stores the valid events of ``events`` once each and reports every event's fate.

    An event is accepted (stored now), a duplicate (stored before with the same content; changes nothing)
    or rejected with a code (changes nothing, except that a seq conflict is recorded for the floor).
    After the commit, if game or jackpot events were stored, the engine is asked to apply them: once
    per request at most.
    """
    now = now or timezone.now()
    assets = {raw["machine"] for raw in events if isinstance(raw, dict) and type(raw.get("machine")) is str}
    machines, remembered = machine_map_read(assets)
    try:
        return _ingest(events, principal, now, machines, remembered=remembered)
    except MachinesChanged as changed:
        # Nothing was stored: the batch is checked again against the machines as they are now (read by the
        # check that found the change, or read here when the single statement found it).
        current = changed.machines if changed.machines is not None else machine_map_refresh(assets)
        return _ingest(events, principal, now, current, remembered=False)


def _ingest(
    events: list[Any],
    principal: Principal,
    now: datetime,
    machines: dict[str, MachineInfo],
    *,
    remembered: bool,
) -> IngestResult:
    result = IngestResult()
    window, limits = time_window(now), event_limits()
    parsed: list[ParsedEvent] = []
    for index, raw in enumerate(events):
        try:
            parsed.append(
                event_parse(index, raw, machines=machines, principal=principal, window=window, limits=limits)
            )
        except EventRejected as rejection:
            result.rejected.append({"index": index, "error": rejection.code, "detail": rejection.detail})
    parsed = _levels_check(parsed, result)
    unique, conflicts = _batch_dedupe(parsed, result)
    single = bool(unique) and _single_statement(unique)
    if remembered and (not single or result.rejected):
        # The single statement confirms the machines it writes for; every other answer asks again.
        machine_map_confirm(machines)
    if not single:
        # The single statement checks the key itself; every other request asks before it writes.
        principal_confirm(principal)
    if unique:
        inserted = _store(unique, conflicts, result, now, principal, single=single)
        result.accepted = len(inserted)
        if any(event.pending for event in inserted):
            # Outside a transaction (the single-statement path) this runs at once: already committed.
            transaction.on_commit(_engine_notify)
    result.rejected.sort(key=lambda item: item["index"])
    return result


def _store(
    unique: list[ParsedEvent],
    conflicts: list[ParsedEvent],
    result: IngestResult,
    now: datetime,
    principal: Principal,
    *,
    single: bool,
) -> list[ParsedEvent]:
    """Stores the batch's distinct events and what follows from them; returns those inserted. With
    ``single``, in one statement that also checks the principal's key."""
    if single:
        try:
            machines = {event.machine.id: event.machine for event in unique}
            inserted, existing = events_store(
                unique, received_at=now, touch=True, key=principal.key, machines=list(machines.values())
            )
        except KeyRevoked:
            principal_refuse(principal)

        _outcomes(unique, existing, conflicts, result)
        _conflicts_record(conflicts, result, now)
        _games_announce(inserted)
        return inserted
    with transaction.atomic():
        inserted, existing = events_store(unique, received_at=now)
        _outcomes(unique, existing, conflicts, result)
        if inserted:
            meters = [event for event in inserted if event.type == MachineEvent.Type.METERS]
            machines_touch(inserted, now=now, lock_all=bool(meters))
            # Door, tilt, handpay and power changes reach the floor maps after commit.
            hooks.machines_changed(
                {event.machine.id for event in inserted if event.type == MachineEvent.Type.STATUS}
            )
            _games_announce(inserted)
            if meters:
                result.memory_resets = meters_apply(meters, now=now)
        _conflicts_record(conflicts, result, now)
    return inserted


def _games_announce(inserted: list[ParsedEvent]) -> None:
    """The machines that played: an idle tile turns "playing" on the floor maps without waiting for a
    snapshot."""
    hooks.machines_played({event.machine.id for event in inserted if event.type == MachineEvent.Type.GAME})


def _single_statement(events: list[ParsedEvent]) -> bool:
    """Whether the batch can be stored by one autocommit statement: on PostgreSQL, games and jackpots of
    one machine or of a gateway's many (no meters or status to apply)."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return False
    return all(event.pending for event in events)


def _outcomes(
    events: list[ParsedEvent],
    existing: dict[tuple[int, int], str],
    conflicts: list[ParsedEvent],
    result: IngestResult,
) -> None:
    """Events not inserted are duplicates when their digest matches the stored one, else conflicts."""
    for event in events:
        if event.stored_id is not None:
            continue
        if existing.get(event.key) == event.digest:
            result.duplicates += 1
        else:
            conflicts.append(event)


def _levels_check(parsed: list[ParsedEvent], result: IngestResult) -> list[ParsedEvent]:
    """Rejects jackpot events for a level the machine does not play (one query for the batch)."""
    # A jackpot event always has its level (_jackpot_parse); `is not None` only tells the type checker.
    pairs = {
        (event.machine.id, event.level)
        for event in parsed
        if event.type == MachineEvent.Type.JACKPOT and event.level is not None
    }
    if not pairs:
        return parsed
    played = hooks.levels_played(pairs)
    kept = []
    for event in parsed:
        if event.type == MachineEvent.Type.JACKPOT and (event.machine.id, event.level) not in played:
            result.rejected.append(
                {
                    "index": event.index,
                    "error": "level_not_played",
                    "detail": f"{event.machine.asset_number} does not play level {event.level}.",
                }
            )
        else:
            kept.append(event)
    return kept


def _batch_dedupe(
    parsed: list[ParsedEvent], result: IngestResult
) -> tuple[list[ParsedEvent], list[ParsedEvent]]:
    """The first event of each (machine, seq) in the batch; a repeat is a duplicate or a conflict."""
    first: dict[tuple[int, int], ParsedEvent] = {}
    conflicts: list[ParsedEvent] = []
    for event in parsed:
        seen = first.get(event.key)
        if seen is None:
            first[event.key] = event
        elif seen.digest == event.digest:
            result.duplicates += 1
        else:
            conflicts.append(event)
    return list(first.values()), conflicts


def _conflicts_record(conflicts: list[ParsedEvent], result: IngestResult, now: datetime) -> None:
    if not conflicts:
        return
    alerts = []
    for event in conflicts:
        detail = _conflict_detail(event)
        result.rejected.append({"index": event.index, "error": "seq_conflict", "detail": detail})
        alerts.append(
            MachineAlert(
                machine_id=event.machine.id,
                kind=MachineAlert.Kind.SEQ_CONFLICT,
                seq=event.seq,
                at=now,
                detail=detail,
                payload={"type": event.type, "at": event.at.isoformat(), **event.payload},
            )
        )
    MachineAlert.objects.bulk_create(alerts)


def _conflict_detail(event: ParsedEvent) -> str:
    return (
        f"{event.machine.asset_number} already sent seq {event.seq} with different content; "
        "the first one is kept and the floor is alerted."
    )


def _engine_notify() -> None:
    """Eager (no worker): the engine runs here and now. With a worker: the process's notifier asks it
    (slots.services.engine_notify), so the request neither waits on the broker nor fails with it."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        hooks.engine_wake()
    else:
        engine_notifier.notify()
