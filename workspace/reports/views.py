"""Report pages (admin look, staff with floor.view_reports) and their CSV exports. Thin: forms, selectors."""

from __future__ import annotations

import csv

from django.conf import settings
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from common.days import business_days_bounds
from common.money import cents_eur_grouped, mc_eur_grouped
from floor.access import VIEW_REPORTS, staff_page
from workspace.progressives.chart import PLOT_WIDTH, level_chart
from workspace.progressives.selectors import level_chart_span, level_series
from workspace.reports.changes import change_lines
from workspace.reports.charts import HBAR_TOP_N, Bar, bar_chart, bars_top, hbar_chart
from workspace.reports.forms import GameReportForm, LevelHistoryForm, RoomHoursForm
from workspace.reports.jackpots import jackpot_liability, level_history
from workspace.reports.selectors import GROUP_LABELS, GameReport, game_report, room_coin_in_by_hour
from workspace.reports.services import machine_hour_stats_refresh_if_stale
from workspace.shell import venue_current

# A day-by-day chart keeps the calendar's order up to a month; longer, the busiest days and the rest.
DAYS_IN_ORDER = 31


def _report_data(request: HttpRequest, defaults: dict) -> QueryDict:
    """The report's query, or, when the page is opened without one, today's business day and the first
    room or level, so it opens on something to read."""
    if request.GET:
        return request.GET
    data = QueryDict(mutable=True)
    data.update({name: str(value) for name, value in defaults.items() if value is not None})
    return data


def _render(request: HttpRequest, template: str, context: dict, status: int = 200) -> HttpResponse:
    return render(request, template, context, status=status)


def _csv_response(filename: str, header: list[str], rows: list[list]) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    writer = csv.writer(response)
    writer.writerow(header)
    writer.writerows(rows)
    return response


def _game_report_csv(report: GameReport) -> HttpResponse:
    header = [
        str(GROUP_LABELS[report.group_by]),
        _("Games played"),
        _("Coin in (EUR)"),
        _("Coin out (EUR)"),
        _("Hold (EUR)"),
        _("Hold %"),
        _("Contributions (EUR)"),
        _("Progressive wins (EUR)"),
        _("Handpay wins (EUR)"),
    ]
    rows = [
        [
            " ".join(row.labels),
            row.games,
            cents_eur_grouped(row.coin_in_cents, group=False),
            cents_eur_grouped(row.coin_out_cents, group=False),
            cents_eur_grouped(row.hold_cents, group=False),
            "" if row.hold_percent is None else formats.number_format(row.hold_percent, decimal_pos=2),
            mc_eur_grouped(row.contributions_mc, group=False),
            cents_eur_grouped(row.progressive_wins_cents, group=False),
            cents_eur_grouped(row.handpay_wins_cents, group=False),
        ]
        for row in [*report.rows, report.total]
    ]
    name = f"games-{report.venue.code}-{report.group_by}-{report.first}-{report.last}.csv"
    return _csv_response(name, header, rows)


@staff_page(VIEW_REPORTS)
def reports_index(request: HttpRequest) -> HttpResponse:
    return _render(request, "workspace/reports/index.html", {"title": _("Floor reports")})


@staff_page(VIEW_REPORTS)
def game_report_view(request: HttpRequest) -> HttpResponse:
    data = _report_data(request, GameReportForm.defaults(venue_current(request)))
    form = GameReportForm(data)
    report = chart = None
    if form.is_valid():
        machine_hour_stats_refresh_if_stale()
        report = game_report(
            form.cleaned_data["venue"],
            form.cleaned_data["first"],
            form.cleaned_data["last"],
            form.cleaned_data["group_by"],
        )
        if request.GET.get("format") == "csv":
            return _game_report_csv(report)
        if report.rows:
            chart = _games_chart(report)
    status = 400 if request.GET and not form.is_valid() else 200
    context = {
        "title": _("Games, coin in and hold"),
        "form": form,
        "report": report,
        "chart": chart,
        "group_label": GROUP_LABELS[report.group_by] if report else "",
        "query": data.urlencode(),
    }
    return _render(request, "workspace/reports/games.html", context, status=status)


def _games_chart(report: GameReport):
    """Coin in per row as horizontal bars: the busiest rows and "others", or the days in order."""
    bars = [Bar(label=" ".join(row.labels), value=row.coin_in_cents) for row in report.rows]
    if report.group_by == "day" and len(bars) <= DAYS_IN_ORDER:
        return hbar_chart(bars, caption=_("Coin in"))
    return hbar_chart(bars_top(bars, HBAR_TOP_N, _("Others")), caption=_("Coin in"))


@staff_page(VIEW_REPORTS)
def room_hours_view(request: HttpRequest) -> HttpResponse:
    data = _report_data(request, RoomHoursForm.defaults(venue_current(request)))
    form = RoomHoursForm(data)
    bars = chart = None
    if form.is_valid():
        machine_hour_stats_refresh_if_stale()
        room, day = form.cleaned_data["room"], form.cleaned_data["day"]
        bars = room_coin_in_by_hour(room, day, timezone.now())
        local = room.venue.time_zone
        if request.GET.get("format") == "csv":
            return _csv_response(
                f"coin-in-by-hour-{room.venue.code}-{room.number}-{day}.csv",
                [_("Hour"), _("Games played"), _("Coin in (EUR)")],
                [
                    [
                        bar.hour.astimezone(_zone(local)).isoformat(),
                        bar.games,
                        cents_eur_grouped(bar.coin_in_cents, group=False),
                    ]
                    for bar in bars
                ],
            )
        chart = bar_chart(
            [Bar(label=f"{bar.hour.astimezone(_zone(local)):%H}", value=bar.coin_in_cents) for bar in bars],
            caption=_("Coin in by hour"),
        )
    status = 400 if request.GET and not form.is_valid() else 200
    context = {
        "title": _("Coin in by hour"),
        "form": form,
        "bars": bars,
        "chart": chart,
        "query": data.urlencode(),
    }
    return _render(request, "workspace/reports/room_hours.html", context, status=status)


def _zone(name: str):
    from zoneinfo import ZoneInfo

    return ZoneInfo(name)


@staff_page(VIEW_REPORTS)
def liability_view(request: HttpRequest) -> HttpResponse:
    liability = jackpot_liability(venue_current(request))
    if request.GET.get("format") == "csv":
        header = [
            _("Progressive"),
            _("Currency"),
            _("Current"),
            _("Reserve"),
            _("Overflow"),
            _("Won, unpaid"),
            _("Liability"),
        ]
        rows = [
            [
                row.progressive.name if row.progressive else _("Total"),
                row.currency,
                *(
                    mc_eur_grouped(value, group=False)
                    for value in (
                        row.current_mc,
                        row.reserve_mc,
                        row.overflow_mc,
                        row.unpaid_cents * 1000,
                        row.total_mc,
                    )
                ),
            ]
            for row in [*liability.rows, *liability.per_currency.values()]
        ]
        return _csv_response("jackpot-liability.csv", header, rows)
    context = {"title": _("Jackpot liability"), "liability": liability}
    return _render(request, "workspace/reports/liability.html", context)


@staff_page(VIEW_REPORTS)
def level_history_view(request: HttpRequest) -> HttpResponse:
    data = _report_data(request, LevelHistoryForm.defaults())
    form = LevelHistoryForm(data)
    history = chart = None
    if form.is_valid():
        zone = settings.TIME_ZONE
        first, last = form.cleaned_data["first"], form.cleaned_data["last"]
        start, end = business_days_bounds(first, last, zone)
        history = level_history(form.cleaned_data["level"], start, end)
        if request.GET.get("format") == "csv":
            return _csv_response(
                f"level-{history.level.pk}-{first}-{last}.csv",
                [_("At"), _("Amount")],
                [[step.at.isoformat(), mc_eur_grouped(step.after_mc, group=False)] for step in history.steps],
            )
        # The chart sums the rows per pixel column in the database (every row counts; a day of one-second
        # batches is 86,400 rows); the CSV above lists them one by one.
        drawn_from, drawn_to = level_chart_span(history.level, start, end, timezone.now())
        chart = level_chart(
            level_series(history.level, drawn_from, drawn_to, PLOT_WIDTH),
            drawn_from,
            drawn_to,
            zone=zone,
            caption=_("%(level)s: amount over time, hits marked") % {"level": history.level},
        )
    status = 400 if request.GET and not form.is_valid() else 200
    context = {
        "title": _("Level history"),
        "form": form,
        "history": history,
        "chart": chart,
        "changes": [(change, change_lines(change)) for change in history.changes] if history else [],
        "query": data.urlencode(),
    }
    return _render(request, "workspace/reports/level_history.html", context, status=status)
