"""The progressives page and one level's history."""

from __future__ import annotations

from datetime import timedelta

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from jackpots.admin.common import CHANGE_LEVEL_PARAMETERS
from jackpots.models import Hit, Level
from jackpots.services import EngineError, level_resume, level_suspend
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


class LevelStateForm(forms.Form):
    """Suspend or resume a level: the action the page offered (so a page left open on a state that has
    changed since is refused, not turned around) and the reason the record keeps."""

    action = forms.ChoiceField(
        choices=[("suspend", "suspend"), ("resume", "resume")], widget=forms.HiddenInput
    )
    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        max_length=500,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=gettext_lazy("Kept in the level's change log and the significant-events register."),
    )


_STATE_ACTIONS = {"suspend": level_suspend, "resume": level_resume}


def _state_action(level: Level) -> str | None:
    """What the page offers: suspend an active level, resume a suspended one; nothing for a retired one."""
    return {Level.State.ACTIVE: "suspend", Level.State.SUSPENDED: "resume"}.get(level.state)


def _state_change(request: HttpRequest, level: Level, form: LevelStateForm) -> tuple[int, str]:
    """POST: the change through the service. (0, "") when done; else the status and the service's
    sentence (400 for a form the page shows again with its errors)."""
    if not form.is_valid():
        return 400, ""
    action = form.cleaned_data["action"]
    try:
        _STATE_ACTIONS[action](level, request.user, form.cleaned_data["reason"])
    except EngineError as error:
        # The level's state changed since the page was read (or it is retired): say so, offer what now fits.
        return (400 if error.code == "reason_required" else 409), error.message
    done = _("%(level)s is suspended.") if action == "suspend" else _("%(level)s is back in play.")
    messages.success(request, done % {"level": level})
    return 0, ""


@workspace_page("jackpots.view_level")
@require_http_methods(["GET", "POST"])
def level_view(request: HttpRequest, pk: int) -> HttpResponse:
    level = get_object_or_404(Level.objects.select_related("progressive"), pk=pk)
    can_change_state = request.user.has_perm(CHANGE_LEVEL_PARAMETERS)
    status, state_error, state_form = 200, "", None
    if request.method == "POST":
        if not can_change_state:
            raise PermissionDenied
        state_form = LevelStateForm(request.POST)
        status, state_error = _state_change(request, level, state_form)
        if status == 0:
            return redirect("workspace:level", level.pk)
        level.refresh_from_db()
    bound = state_form if status != 200 and not state_error else None  # a refused form shows its errors
    return level_page(request, level, status=status, state_error=state_error, state_form=bound)


def level_page(
    request: HttpRequest,
    level: Level,
    *,
    forms: dict | None = None,
    open_kind: str = "",
    status: int = 200,
    state_error: str = "",
    state_form: LevelStateForm | None = None,
) -> HttpResponse:
    """The level's chart and hits, its state's form, its changes waiting for approval and, for who may
    propose, the forms to propose one (``forms`` bound to a refused post, ``open_kind`` the one to show
    open; ``state_error`` why a suspend or resume was refused, ``state_form`` a refused one's bound form)."""
    offered = _state_action(level)
    if state_form is None and offered and request.user.has_perm(CHANGE_LEVEL_PARAMETERS):
        state_form = LevelStateForm(initial={"action": offered})
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
        "state_form": state_form,
        "state_action": offered,
        "state_error": state_error,
    }
    return render(request, "workspace/progressives/level.html", context, status=status)
