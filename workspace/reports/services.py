"""Writes of the reports: keeping the hourly summaries in step with the raw events and contribution rows."""

from __future__ import annotations

import logging
from collections import defaultdict
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Max, Model, Q, QuerySet, Sum
from django.db.models.functions import TruncHour
from django.utils import timezone

from common.days import business_date_of, reportable_span
from jackpots.models import MachineContribution
from slots.models import MachineEvent, SlotMachine
from workspace.models import MachineHourStat, ReportRefreshState

# An ingest (or apply) transaction takes its ids when it inserts and becomes visible when it commits.
# Rescanning everything above the highest ids seen this long ago catches ids that were committed out of order.
RESCAN_SECONDS = 120
logger = logging.getLogger(__name__)


def _rescan_from(checkpoints: list[list]) -> tuple[tuple[int, int], list[list]]:
    """The (event id, contribution id) to rescan from, and the checkpoints still worth keeping.

    Ids up to a checkpoint taken RESCAN_SECONDS before the previous refresh were all committed when that
    refresh ran, and it scanned them; later ones are scanned again now. A checkpoint written before the
    summaries carried contributions has no contribution id: every contribution row is scanned once.
    """
    if not checkpoints:
        return (0, 0), []
    cutoff = datetime.fromisoformat(checkpoints[-1][0]) - timedelta(seconds=RESCAN_SECONDS)
    settled = [i for i, (at, *_ids) in enumerate(checkpoints) if datetime.fromisoformat(at) <= cutoff]
    if not settled:
        return (0, 0), checkpoints
    _at, event_id, *contribution_id = checkpoints[settled[-1]]
    return (event_id, contribution_id[0] if contribution_id else 0), checkpoints[settled[-1] :]


def _hours_recompute(machine_ids: set[int], first_hour: datetime, last_hour: datetime) -> int:
    """Recomputes whole hours first_hour..last_hour of the given machines from their raw game events and
    their contribution rows."""
    zones = dict(SlotMachine.objects.filter(id__in=machine_ids).values_list("id", "room__venue__time_zone"))
    span = {"machine_id__in": machine_ids, "at__gte": first_hour, "at__lt": last_hour + timedelta(hours=1)}
    games = (
        MachineEvent.objects.filter(_plausible_win(), type=MachineEvent.Type.GAME, **span)
        .annotate(hour=TruncHour("at", tzinfo=UTC))
        .values("machine_id", "hour")
        .annotate(games=Count("id"), coin_in=Sum("wager_cents"), coin_out=Sum("win_cents"))
        .order_by()
    )
    stats: dict[tuple[int, datetime], MachineHourStat] = {}

    def stat(machine_id: int, hour: datetime) -> MachineHourStat:
        if (machine_id, hour) not in stats:
            stats[(machine_id, hour)] = MachineHourStat(
                machine_id=machine_id, hour=hour, business_date=business_date_of(hour, zones[machine_id])
            )
        return stats[(machine_id, hour)]

    for row in games.iterator(chunk_size=5000):
        row_stat = stat(row["machine_id"], row["hour"])
        row_stat.games = row["games"]
        row_stat.coin_in_cents = row["coin_in"] or 0
        row_stat.coin_out_cents = row["coin_out"] or 0
    contributed = (
        MachineContribution.objects.filter(**span)
        .annotate(hour=TruncHour("at", tzinfo=UTC))
        .values("machine_id", "hour")
        .annotate(total=Sum("contributed_mc"))
        .order_by()
    )
    # A batch is applied seconds after its games, so an hour may hold contributions and no games.
    for row in contributed.iterator(chunk_size=5000):
        stat(row["machine_id"], row["hour"]).contributed_mc = row["total"] or 0
    MachineHourStat.objects.bulk_create(
        stats.values(),
        batch_size=2000,
        update_conflicts=True,
        unique_fields=["machine", "hour"],
        update_fields=["business_date", "games", "coin_in_cents", "coin_out_cents", "contributed_mc"],
    )
    return len(stats)


def _plausible_win() -> Q:
    """Game events the events API refuses today were stored before it bounded wins: they are left out of
    the summaries, whose bigint sums they would overflow (two wins of 2^63-1 in an hour)."""
    return Q(win_cents__lte=settings.GAME_WIN_MAX_CENTS)


def _implausible_games_warn(since_id: int, up_to_id: int, span: tuple[datetime, datetime]) -> None:
    """Logs how many of the game events with ids in (since_id, up_to_id] the summaries leave out."""
    left_out = (
        MachineEvent.objects.filter(id__gt=since_id, id__lte=up_to_id, type=MachineEvent.Type.GAME)
        .filter(Q(at__lt=span[0]) | Q(at__gte=span[1]) | ~_plausible_win())
        .count()
    )
    if left_out:
        logger.warning(
            "Hour summaries: %d stored game event(s) dated outside the reportable span or with a win above "
            "GAME_WIN_MAX_CENTS are left out.",
            left_out,
        )


def _touched_hours(
    model: type[Model], since_id: int, up_to_id: int, span: tuple[datetime, datetime], **filters: object
) -> QuerySet:
    """(machine id, hour) of the rows with ids in (since_id, up_to_id] dated within ``span``."""
    return (
        model.objects.filter(id__gt=since_id, id__lte=up_to_id, at__gte=span[0], at__lt=span[1], **filters)
        .annotate(hour=TruncHour("at", tzinfo=UTC))
        .values_list("machine_id", "hour")
        .distinct()
        .order_by()
    )


def machine_hour_stats_refresh(*, now: datetime | None = None) -> int:
    """Brings the hour summaries up to date with the committed game events and contribution rows; returns
    the hours rewritten.

    Idempotent: each hour touched by a new event or a new contribution row is recomputed whole from both.
    """
    now = now or timezone.now()
    with transaction.atomic():
        state, _ = ReportRefreshState.objects.select_for_update().get_or_create(pk=1)
        rebuild = state.close_hour != settings.BUSINESS_DAY_CLOSE_HOUR
        (event_start, contribution_start), kept = _rescan_from(state.checkpoints)
        if rebuild:
            (event_start, contribution_start), kept = (0, 0), []
        max_event = MachineEvent.objects.aggregate(top=Max("id"))["top"] or 0
        max_contribution = MachineContribution.objects.aggregate(top=Max("id"))["top"] or 0
        span = reportable_span(now)
        _implausible_games_warn(event_start, max_event, span)
        hours_by_machine: dict[int, set[datetime]] = defaultdict(set)
        for touched in (
            _touched_hours(MachineEvent, event_start, max_event, span, type=MachineEvent.Type.GAME),
            _touched_hours(MachineContribution, contribution_start, max_contribution, span),
        ):
            for machine_id, hour in touched.iterator(chunk_size=5000):
                hours_by_machine[machine_id].add(hour)
        # Machines touched in the same span of hours are recomputed together, in one query.
        spans: dict[tuple[datetime, datetime], set[int]] = defaultdict(set)
        for machine_id, hours in hours_by_machine.items():
            spans[(min(hours), max(hours))].add(machine_id)
        written = sum(_hours_recompute(ids, first, last) for (first, last), ids in spans.items())
        state.checkpoints = [*kept, [now.isoformat(), max_event, max_contribution]]
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
