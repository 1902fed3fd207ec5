"""Writes of the reports: keeping the hourly game summaries in step with the raw events."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Max, Sum
from django.db.models.functions import TruncHour
from django.utils import timezone

from floor.models import MachineHourStat, ReportRefreshState
from floor.reports.days import business_date_of
from slots.models import MachineEvent, SlotMachine

# An ingest transaction takes its event ids when it inserts and becomes visible when it commits. Rescanning
# everything above the highest id seen this long ago catches ids that were committed out of order.
RESCAN_SECONDS = 120


def _rescan_from(checkpoints: list[list]) -> tuple[int, list[list]]:
    """The id to rescan from, and the checkpoints still worth keeping.

    Ids up to a checkpoint taken RESCAN_SECONDS before the previous refresh were all committed when that
    refresh ran, and it scanned them; later ones are scanned again now.
    """
    if not checkpoints:
        return 0, []
    cutoff = datetime.fromisoformat(checkpoints[-1][0]) - timedelta(seconds=RESCAN_SECONDS)
    settled = [i for i, (at, _) in enumerate(checkpoints) if datetime.fromisoformat(at) <= cutoff]
    if not settled:
        return 0, checkpoints
    return checkpoints[settled[-1]][1], checkpoints[settled[-1] :]


def _hours_recompute(machine_ids: set[int], first_hour: datetime, last_hour: datetime) -> int:
    """Recomputes whole hours first_hour..last_hour of the given machines from their raw game events."""
    zones = dict(SlotMachine.objects.filter(id__in=machine_ids).values_list("id", "room__venue__time_zone"))
    rows = (
        MachineEvent.objects.filter(
            type=MachineEvent.Type.GAME,
            machine_id__in=machine_ids,
            at__gte=first_hour,
            at__lt=last_hour + timedelta(hours=1),
        )
        .annotate(hour=TruncHour("at", tzinfo=UTC))
        .values("machine_id", "hour")
        .annotate(games=Count("id"), coin_in=Sum("wager_cents"), coin_out=Sum("win_cents"))
        .order_by()
    )
    stats = [
        MachineHourStat(
            machine_id=row["machine_id"],
            hour=row["hour"],
            business_date=business_date_of(row["hour"], zones[row["machine_id"]]),
            games=row["games"],
            coin_in_cents=row["coin_in"] or 0,
            coin_out_cents=row["coin_out"] or 0,
        )
        for row in rows.iterator(chunk_size=5000)
    ]
    MachineHourStat.objects.bulk_create(
        stats,
        batch_size=2000,
        update_conflicts=True,
        unique_fields=["machine", "hour"],
        update_fields=["business_date", "games", "coin_in_cents", "coin_out_cents"],
    )
    return len(stats)


def machine_hour_stats_refresh(*, now: datetime | None = None) -> int:
    """Brings the hour summaries up to date with the committed game events; returns the hours rewritten.

    Idempotent: each hour touched by a new event is recomputed whole from the raw events.
    """
    now = now or timezone.now()
    with transaction.atomic():
        state, _ = ReportRefreshState.objects.select_for_update().get_or_create(pk=1)
        rebuild = state.close_hour != settings.BUSINESS_DAY_CLOSE_HOUR
        start_id, kept = _rescan_from(state.checkpoints)
        if rebuild:
            start_id, kept = 0, []
        max_id = MachineEvent.objects.aggregate(top=Max("id"))["top"] or 0
        touched = (
            MachineEvent.objects.filter(type=MachineEvent.Type.GAME, id__gt=start_id, id__lte=max_id)
            .annotate(hour=TruncHour("at", tzinfo=UTC))
            .values_list("machine_id", "hour")
            .distinct()
            .order_by()
        )
        hours_by_machine: dict[int, list[datetime]] = defaultdict(list)
        for machine_id, hour in touched.iterator(chunk_size=5000):
            hours_by_machine[machine_id].append(hour)
        # Machines touched in the same span of hours are recomputed together, in one query.
        spans: dict[tuple[datetime, datetime], set[int]] = defaultdict(set)
        for machine_id, hours in hours_by_machine.items():
            spans[(min(hours), max(hours))].add(machine_id)
        written = sum(_hours_recompute(ids, first, last) for (first, last), ids in spans.items())
        state.checkpoints = [*kept, [now.isoformat(), max_id]]
        state.close_hour = settings.BUSINESS_DAY_CLOSE_HOUR
        state.refreshed_at = now
        state.save()
    return written


def machine_hour_stats_refresh_if_stale(*, max_age_seconds: int = 30) -> None:
    """Refreshes before a report is read, unless a refresh ran moments ago (the beat task runs it too)."""
    state = ReportRefreshState.objects.filter(pk=1).first()
    if (
        state is None
        or state.refreshed_at is None
        or (timezone.now() - state.refreshed_at).total_seconds() > max_age_seconds
    ):
        machine_hour_stats_refresh()
