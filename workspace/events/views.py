"""The significant-events register in the workspace: one venue's business day, filtered, and as CSV."""

from __future__ import annotations

from datetime import date
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from common.days import business_date_of
from floor.access import VIEW_REPORTS
from floor.models import Venue
from workspace.access import workspace_page
from workspace.events.export import significant_events_csv
from workspace.events.forms import DayForm, EventFilterForm
from workspace.events.selectors import significant_events_filtered
from workspace.shell import venue_current

FILTERS = ("kind", "subject", "user")


def _day_parse(text: str) -> tuple[date | None, str | None]:
    form = DayForm({"day": text})
    if form.is_valid():
        return form.cleaned_data["day"], None
    return None, " ".join(form.errors["day"])


def _filters_query(request: HttpRequest) -> str:
    kept = {name: request.GET[name] for name in FILTERS if request.GET.get(name)}
    return f"?{urlencode(kept)}" if kept else ""


@workspace_page(VIEW_REPORTS)
def events_home_view(request: HttpRequest) -> HttpResponse:
    """The register of the venue being worked in: today's business day, or the ``?day=`` asked for (the
    page's day picker sends it here), with the filters carried along."""
    venue = venue_current(request)
    if venue is None:
        raise Http404(_("No venue yet."))
    day = business_date_of(timezone.now(), venue.time_zone)
    if request.GET.get("day"):
        day, refused = _day_parse(request.GET["day"])
        if refused is not None:
            return HttpResponseBadRequest(refused, content_type="text/plain; charset=utf-8")
    path = reverse("workspace:events-day", args=[venue.code, day.isoformat()])
    return redirect(path + _filters_query(request))


@workspace_page(VIEW_REPORTS)
def events_day_view(request: HttpRequest, venue: str, day: str) -> HttpResponse:
    found = get_object_or_404(Venue, code=venue)
    when, refused = _day_parse(day)
    filters = EventFilterForm(request.GET)
    valid = filters.is_valid() and refused is None
    if refused is not None:  # nothing to show: the page says why, with a 400
        messages.error(request, refused)
    rows = significant_events_filtered(found, when, **filters.cleaned_data) if valid else []
    if valid and request.GET.get("format") == "csv":
        return _csv_response(found, when, rows)
    context = {
        "title": _("Significant events: %(venue)s, %(day)s")
        % {"venue": found.name, "day": formats.date_format(when, "SHORT_DATE_FORMAT") if when else day},
        "venue": found,
        "day": when,
        "day_form": DayForm(initial={"day": when}),
        "filters": filters,
        "refused": refused,
        "rows": rows,
        "query": _filters_query(request),
    }
    return render(request, "workspace/events/day.html", context, status=200 if valid else 400)


@workspace_page(VIEW_REPORTS)
def events_csv_view(request: HttpRequest, venue: str, day: str) -> HttpResponse:
    found = get_object_or_404(Venue, code=venue)
    when, refused = _day_parse(day)
    if refused is not None:
        return HttpResponseBadRequest(refused, content_type="text/plain; charset=utf-8")
    filters = EventFilterForm(request.GET)
    if not filters.is_valid():
        sentences = [" ".join(errors) for errors in filters.errors.values()]
        return HttpResponseBadRequest(" ".join(sentences), content_type="text/plain; charset=utf-8")
    return _csv_response(found, when, significant_events_filtered(found, when, **filters.cleaned_data))


def _csv_response(venue: Venue, day: date, rows) -> HttpResponse:
    response = HttpResponse(significant_events_csv(venue, rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="significant-events-{venue.code}-{day}.csv"'
    return response
