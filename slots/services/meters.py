"""Cumulative SAS meters become per-snapshot deltas that are never negative.

A meter of N digits wraps to zero at 10**N. When a snapshot shows a meter lower than the last one, either
the meter rolled over or the machine's memory was reset (a RAM clear zeroes every meter). We tell them
apart by the size of the drop: a rollover drops by more than half the meter's range (from near the top
to near zero), so between two snapshots a meter may advance by less than half its range (5 * 10**9 cents
with 10 digits). Any other drop is a memory reset: the snapshot becomes the new baseline, its deltas are
zero and the floor is told. The first snapshot of a machine is its baseline.

An increment (or rollover) larger than the machine could have played since the meter's last snapshot
(``meter_ceiling``) is implausible: the delta is stored as reported but flagged (review ``pending``), the
floor gets an ``implausible_meters`` alert with the numbers, and the reports and the meter's running total
leave it out until a person accepts it (``meter_delta_accept``) or corrects it (``meter_delta_correct``).
The snapshot still becomes the baseline: its cumulative values are what the machine shows.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from slots.models import MachineAlert, MachineMeter, MeterDelta, SlotMachine
from slots.services.parsing import ParsedEvent


class MeterReviewRefused(Exception):
    """A review of a flagged meter delta refused: a stable code and a sentence for the floor manager."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


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


@dataclass(frozen=True)
class PlausibilityRule:
    min_game_ms: int
    max_payout_bets: int
    margin: int


def plausibility_rule() -> PlausibilityRule:
    return PlausibilityRule(
        min_game_ms=settings.METERS_MIN_GAME_MILLISECONDS,
        max_payout_bets=settings.METERS_MAX_PAYOUT_BETS,
        margin=settings.METERS_PLAUSIBILITY_MARGIN,
    )


def meter_ceiling(name: str, max_bet_cents: int, elapsed: timedelta, rule: PlausibilityRule) -> int:
    """The most meter ``name`` can advance in ``elapsed`` (since its last snapshot) on a machine.

    Games possible: one per minimum game time, plus the one in play (a clock that went backwards allows
    just that one). Per game: games_played 1, coin_in the max bet, every other meter (wins, jackpots,
    handpays, tickets and bills) the max bet times the payout bound. Times the margin. The games_played
    meter does not vouch for coin_in: a meter that jumped may be wrong in all its counters."""
    games = max(0, elapsed // timedelta(milliseconds=rule.min_game_ms)) + 1
    if name == "games_played":
        per_game = 1
    elif name == "coin_in":
        per_game = max_bet_cents
    else:
        per_game = max_bet_cents * rule.max_payout_bets
    return games * per_game * rule.margin


def implausible_jumps(
    deltas: dict[str, tuple[int, str]],
    baseline_at: dict[str, datetime],
    at: datetime,
    max_bet_cents: int,
    rule: PlausibilityRule,
) -> dict[str, int]:
    """Meter name → ceiling, for each increment or rollover of a snapshot taken at ``at`` above it."""
    found = {}
    for name, (delta, kind) in deltas.items():
        if kind not in (INCREMENT, ROLLOVER):
            continue
        ceiling = meter_ceiling(name, max_bet_cents, at - baseline_at[name], rule)
        if delta > ceiling:
            found[name] = ceiling
    return found


def snapshot_deltas(
    baseline: dict[str, int], snapshot: dict[str, int], modulus: int
) -> tuple[dict[str, tuple[int, str]], bool]:
    """Deltas of every meter of ``snapshot`` against ``baseline`` and whether it is a memory reset.

    One meter that can only be explained by a reset makes the whole snapshot a reset: the RAM clear
    zeroed all meters, so increments computed on the others would be meaningless.
    """
    deltas = {name: meter_delta(baseline.get(name), value, modulus) for name, value in snapshot.items()}
    if any(kind == MEMORY_RESET for _delta, kind in deltas.values()):
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
    applied = _Applied(stored, plausibility_rule(), now)
    for snapshots in by_machine.values():
        snapshots.sort(key=lambda event: event.seq)
        modulus = 10 ** snapshots[0].machine.meter_digits
        for event in snapshots:
            applied.snapshot(event, modulus)
    MachineMeter.objects.bulk_create(applied.new_meters.values())
    MachineMeter.objects.bulk_update(applied.changed.values(), ["value", "seq", "at", "total"])
    MeterDelta.objects.bulk_create(applied.deltas)
    MachineAlert.objects.bulk_create(applied.alerts)
    return applied.resets


class _Applied:
    """The rows ``meters_apply`` writes, gathered snapshot by snapshot."""

    def __init__(self, stored: dict[tuple[int, str], MachineMeter], rule: PlausibilityRule, now: datetime):
        self.stored, self.rule, self.now = stored, rule, now
        self.new_meters: dict[tuple[int, str], MachineMeter] = {}
        self.changed: dict[tuple[int, str], MachineMeter] = {}
        self.deltas: list[MeterDelta] = []
        self.alerts: list[MachineAlert] = []
        self.resets = 0

    def snapshot(self, event: ParsedEvent, modulus: int) -> None:
        machine_id = event.machine.id
        meters = {name: self.stored.get((machine_id, name)) for name in event.meters}
        # A snapshot older than one already applied is kept as an event but moves no baseline: the
        # newer cumulative values already contain everything it could add.
        if any(meter is not None and meter.seq > event.seq for meter in meters.values()):
            return
        known = {name: meter for name, meter in meters.items() if meter is not None}
        baseline = {name: meter.value for name, meter in known.items()}
        result, reset = snapshot_deltas(baseline, event.meters, modulus)
        flagged: dict[str, int] = {}
        if reset:
            self.resets += 1
            self.alerts.append(_memory_reset_alert(event, baseline, self.now))
        else:
            since = {name: meter.at for name, meter in known.items()}
            flagged = implausible_jumps(result, since, event.at, event.machine.max_bet_cents, self.rule)
        if flagged:
            self.alerts.append(_implausible_alert(event, baseline, result, flagged, self.now))
        for name, (delta, kind) in result.items():
            self.deltas.append(_delta_row(event, name, delta, kind, flagged.get(name)))
            # A flagged delta joins the running total only once a person has reviewed it.
            self._meter_move(event, name, meters[name], reset, 0 if name in flagged else delta)

    def _meter_move(
        self, event: ParsedEvent, name: str, meter: MachineMeter | None, reset: bool, counted: int
    ) -> None:
        key, value = (event.machine.id, name), event.meters[name]
        if meter is None:
            meter = MachineMeter(machine_id=key[0], name=name, value=value, seq=event.seq, at=event.at)
            self.stored[key] = self.new_meters[key] = meter
            return
        meter.value, meter.seq, meter.at = value, event.seq, event.at
        meter.total = 0 if reset else meter.total + counted
        if key not in self.new_meters:
            self.changed[key] = meter


def _delta_row(event: ParsedEvent, name: str, delta: int, kind: str, ceiling: int | None) -> MeterDelta:
    # meters_apply gets only events the storage just inserted, and it sets stored_id on each of those.
    assert event.stored_id is not None
    return MeterDelta(
        event_id=event.stored_id,
        machine_id=event.machine.id,
        name=name,
        value=event.meters[name],
        delta=delta,
        kind=kind,
        at=event.at,
        review=MeterDelta.Review.PENDING if ceiling is not None else MeterDelta.Review.NONE,
        ceiling=ceiling,
    )


def _implausible_alert(
    event: ParsedEvent,
    baseline: dict[str, int],
    deltas: dict[str, tuple[int, str]],
    ceilings: dict[str, int],
    now: datetime,
) -> MachineAlert:
    jumps = {
        name: {
            "before": baseline[name],
            "after": event.meters[name],
            "delta": deltas[name][0],
            "ceiling": ceiling,
        }
        for name, ceiling in sorted(ceilings.items())
    }
    described = "; ".join(
        f"{name} {jump['before']} → {jump['after']} (+{jump['delta']}, at most +{jump['ceiling']})"
        for name, jump in jumps.items()
    )
    detail = (
        f"at seq {event.seq} {described}, more than the machine could have played since its last snapshot "
        f"(max bet {event.machine.max_bet_cents} cents). Left out of the reports until a person accepts or "
        "corrects it."
    )
    payload = {"meters": jumps, "max_bet_cents": event.machine.max_bet_cents}
    return _alert(event, MachineAlert.Kind.IMPLAUSIBLE_METERS, now, detail, payload)


def _alert(
    event: ParsedEvent, kind: str, now: datetime, detail: str, payload: dict[str, Any]
) -> MachineAlert:
    """An alert for the floor about a snapshot; ``detail`` follows the machine's asset number."""
    return MachineAlert(
        machine_id=event.machine.id,
        kind=kind,
        seq=event.seq,
        at=now,
        detail=f"{event.machine.asset_number}: {detail}",
        payload=payload,
    )


def _memory_reset_alert(event: ParsedEvent, baseline: dict[str, int], now: datetime) -> MachineAlert:
    dropped = sorted(name for name, value in event.meters.items() if value < baseline.get(name, 0))
    detail = (
        f"meters {', '.join(dropped)} went down at seq {event.seq}; "
        "the machine's memory was reset and its meters start again from this snapshot."
    )
    payload = {"before": {name: baseline[name] for name in dropped}, "after": event.meters}
    return _alert(event, MachineAlert.Kind.MEMORY_RESET, now, detail, payload)


def meter_delta_accept(delta_id: int, user: User, note: str = "") -> MeterDelta:
    """A person accepts a flagged delta as the machine reported it: it joins the reports and the total."""
    return _review(delta_id, user, MeterDelta.Review.ACCEPTED, None, note)


def meter_delta_correct(delta_id: int, user: User, value: object, note: str) -> MeterDelta:
    """A person replaces a flagged delta with their own figure (read off the machine's meters, say); the
    machine's figure stays in ``reported_delta``. A note saying why is required."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise MeterReviewRefused("invalid_delta", _("The corrected delta must be a whole number, 0 or more."))
    if not note or not note.strip():
        raise MeterReviewRefused("reason_required", _("A correction needs a note saying why."))
    return _review(delta_id, user, MeterDelta.Review.CORRECTED, value, note)


def _review(delta_id: int, user: User, review: str, value: int | None, note: str) -> MeterDelta:
    """Records who reviewed a flagged delta and when; bad input raises MeterReviewRefused, changes nothing."""
    with transaction.atomic():
        row = MeterDelta.objects.select_related("event").filter(pk=delta_id).first()
        if row is None:
            raise MeterReviewRefused("not_found", _("No such meter delta."))
        # The machine's row first, as the ingest locks it: one order, no deadlock with a new snapshot.
        SlotMachine.objects.select_for_update().filter(pk=row.machine_id).first()
        row = MeterDelta.objects.select_for_update().select_related("event").get(pk=delta_id)
        if row.review != MeterDelta.Review.PENDING:
            raise MeterReviewRefused(
                "not_pending", _("Only a flagged delta awaiting review can be accepted or corrected.")
            )
        if value is not None:
            row.reported_delta, row.delta = row.delta, value
        row.review, row.reviewed_at, row.reviewed_by = review, timezone.now(), user
        row.review_note = note.strip()
        row.save(
            update_fields=["delta", "reported_delta", "review", "reviewed_at", "reviewed_by", "review_note"]
        )
        _meter_total_add(row)
        _alert_close(row, user)
    return row


def _meter_total_add(row: MeterDelta) -> None:
    """The reviewed delta joins its meter's running total, unless a memory reset restarted it since."""
    reset_since = MeterDelta.objects.filter(
        machine_id=row.machine_id, name=row.name, kind=MEMORY_RESET, event__seq__gt=row.event.seq
    ).exists()
    if not reset_since:
        MachineMeter.objects.filter(machine_id=row.machine_id, name=row.name).update(
            total=models.F("total") + row.delta
        )


def _alert_close(row: MeterDelta, user: User) -> None:
    """The snapshot's alert is acknowledged once none of its flagged deltas awaits review."""
    if MeterDelta.objects.filter(event_id=row.event_id, review=MeterDelta.Review.PENDING).exists():
        return
    MachineAlert.objects.filter(
        machine_id=row.machine_id,
        seq=row.event.seq,
        kind=MachineAlert.Kind.IMPLAUSIBLE_METERS,
        acknowledged_at__isnull=True,
    ).update(acknowledged_at=row.reviewed_at, acknowledged_by=user)
