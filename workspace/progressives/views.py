"""The progressives page and one level's history."""

from __future__ import annotations

from datetime import timedelta

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.utils.translation import gettext as _

from jackpots.models import Hit, Level
from workspace.access import workspace_page
from workspace.approvals.forms import level_forms
from workspace.approvals.selectors import proposals_pending
from workspace.progressives.chart import PLOT_WIDTH, level_chart
from workspace.progressives.selectors import level_chart_span, level_series, levels_overview
from workspace.shell import venue_current

_DAYS = (7, 30, 90, 365)
_HOURS = (6, 24, 72, 168)
PROPOSE = "jackpots.propose_change"


def _choice(request: HttpRequest, name: str, choices: tuple[int, ...], default: int) -> int:
    """A window picked from a fixed list; anything else is the default."""
    value = request.GET.get(name, "")
    return int(value) if value.isdigit() and int(value) in choices else default


@workspace_page("jackpots.view_level")
def progressives_view(request: HttpRequest) -> HttpResponse:
    now = timezone.now()
    days = _choice(request, "days", _DAYS, 30)
    context = {
        "title": _("Progressives"),
        "rows": levels_overview(now, days, venue_current(request)),
        "days": days,
        "day_choices": _DAYS,
        "now": now,
    }
    return render(request, "workspace/progressives/levels.html", context)


@workspace_page("jackpots.view_level")
def level_view(request: HttpRequest, pk: int) -> HttpResponse:
    level = get_object_or_404(Level.objects.select_related("progressive"), pk=pk)
    return level_page(request, level)


def level_page(
    request: HttpRequest, level: Level, *, forms: dict | None = None, open_kind: str = "", status: int = 200
) -> HttpResponse:
    """The level's chart and hits, its changes waiting for approval and, for who may propose, the forms
    to propose one (``forms`` bound to a refused post, ``open_kind`` the one to show open)."""
    venue = venue_current(request)
    zone = venue.time_zone if venue else "Europe/Rome"
    hours = _choice(request, "hours", _HOURS, 24)
    now = timezone.now()
    start, end = level_chart_span(level, now - timedelta(hours=hours), now, now)
    series = level_series(level, start, end, PLOT_WIDTH)
    caption = _("%(level)s: amount over the last %(hours)s hours") % {"level": level, "hours": hours}
    can_propose = request.user.has_perm(PROPOSE) and level.state != Level.State.RETIRED
    context = {
        "title": f"{level.progressive.name} · {level.name}",
        "level": level,
        "chart": level_chart(series, start, end, zone=zone, caption=caption),
        "caption": caption,
        "hours": hours,
        "hour_choices": _HOURS,
        "changes": series.changes,
        "hits": Hit.objects.filter(level=level, at__gte=start, at__lt=end)
        .select_related("machine")
        .order_by("-at"),
        "pending": proposals_pending(request.user, now, level),
        "forms": (forms or level_forms(level)) if can_propose else {},
        "open_kind": open_kind,
    }
    return render(request, "workspace/progressives/level.html", context, status=status)
