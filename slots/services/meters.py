"""Cumulative SAS meters become per-snapshot deltas that are never negative.

A meter of N digits wraps to zero at 10**N. When a snapshot shows a meter lower than the last one, either
the meter rolled over or the machine's memory was reset (a RAM clear zeroes every meter). We tell them
apart by the size of the drop: a rollover drops by more than half the meter's range (from near the top
to near zero), so between two snapshots a meter may advance by less than half its range (5 * 10**9 cents
with 10 digits). Any other drop is a memory reset: the snapshot becomes the new baseline, its deltas are
zero and the floor is told. The first snapshot of a machine is its baseline.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from slots.models import MachineAlert, MachineMeter, MeterDelta
from slots.services.parsing import ParsedEvent

BASELINE = MeterDelta.Kind.BASELINE
INCREMENT = MeterDelta.Kind.INCREMENT
ROLLOVER = MeterDelta.Kind.ROLLOVER
MEMORY_RESET = MeterDelta.Kind.MEMORY_RESET


def meter_delta(previous: int | None, value: int, modulus: int) -> tuple[int, str]:
    """The increment from ``previous`` to ``value`` of a meter that wraps at ``modulus``, and its kind."""
    if previous is None:
        return 0, BASELINE
    if value >= previous:
        return value - previous, INCREMENT
    if previous - value > modulus // 2:
        return modulus - previous + value, ROLLOVER
    return 0, MEMORY_RESET


def snapshot_deltas(
    baseline: dict[str, int], snapshot: dict[str, int], modulus: int
) -> tuple[dict[str, tuple[int, str]], bool]:
    """Deltas of every meter of ``snapshot`` against ``baseline`` and whether it is a memory reset.

    One meter that can only be explained by a reset makes the whole snapshot a reset: the RAM clear
    zeroed all meters, so increments computed on the others would be meaningless.
    """
    deltas = {name: meter_delta(baseline.get(name), value, modulus) for name, value in snapshot.items()}
    if any(kind == MEMORY_RESET for _, kind in deltas.values()):
        return {name: (0, MEMORY_RESET) for name in snapshot}, True
    return deltas, False


def meters_apply(events: list[ParsedEvent], *, now: datetime) -> int:
    """Turns newly stored meter snapshots into deltas and moves the baselines; returns memory resets.

    The caller holds the row lock of every machine in ``events`` (taken when it touched them), so the
    baselines of a machine are read and written by one transaction at a time.
    """
    by_machine: dict[int, list[ParsedEvent]] = defaultdict(list)
    for event in events:
        by_machine[event.machine.id].append(event)
    stored: dict[tuple[int, str], MachineMeter] = {
        (meter.machine_id, meter.name): meter
        for meter in MachineMeter.objects.filter(machine_id__in=by_machine)
    }
    new_meters: dict[tuple[int, str], MachineMeter] = {}
    changed: dict[tuple[int, str], MachineMeter] = {}
    deltas: list[MeterDelta] = []
    alerts: list[MachineAlert] = []
    for machine_id, snapshots in by_machine.items():
        snapshots.sort(key=lambda event: event.seq)
        modulus = 10 ** snapshots[0].machine.meter_digits
        for event in snapshots:
            meters = {name: stored.get((machine_id, name)) for name in event.meters}
            # A snapshot older than one already applied is kept as an event but moves no baseline: the
            # newer cumulative values already contain everything it could add.
            if any(meter is not None and meter.seq > event.seq for meter in meters.values()):
                continue
            baseline = {name: meter.value for name, meter in meters.items() if meter is not None}
            snapshot_result, reset = snapshot_deltas(baseline, event.meters, modulus)
            if reset:
                alerts.append(_memory_reset_alert(event, baseline, now))
            for name, (delta, kind) in snapshot_result.items():
                value = event.meters[name]
                deltas.append(
                    MeterDelta(
                        event_id=event.stored_id,
                        machine_id=machine_id,
                        name=name,
                        value=value,
                        delta=delta,
                        kind=kind,
                        at=event.at,
                    )
                )
                meter = meters[name]
                if meter is None:
                    meter = MachineMeter(
                        machine_id=machine_id, name=name, value=value, seq=event.seq, at=event.at
                    )
                    stored[(machine_id, name)] = new_meters[(machine_id, name)] = meter
                    continue
                meter.value, meter.seq, meter.at = value, event.seq, event.at
                meter.total = 0 if reset else meter.total + delta
                if (machine_id, name) not in new_meters:
                    changed[(machine_id, name)] = meter
    MachineMeter.objects.bulk_create(new_meters.values())
    MachineMeter.objects.bulk_update(changed.values(), ["value", "seq", "at", "total"])
    MeterDelta.objects.bulk_create(deltas)
    MachineAlert.objects.bulk_create(alerts)
    return len(alerts)


def _memory_reset_alert(event: ParsedEvent, baseline: dict[str, int], now: datetime) -> MachineAlert:
    dropped = sorted(name for name, value in event.meters.items() if value < baseline.get(name, 0))
    return MachineAlert(
        machine_id=event.machine.id,
        kind=MachineAlert.Kind.MEMORY_RESET,
        seq=event.seq,
        at=now,
        detail=(
            f"{event.machine.asset_number}: meters {', '.join(dropped)} went down at seq {event.seq}; "
            "the machine's memory was reset and its meters start again from this snapshot."
        ),
        payload={"before": {name: baseline[name] for name in dropped}, "after": event.meters},
    )
