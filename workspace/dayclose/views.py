"""Shift and day close: a venue's business day reconciled, signed off by a manager, as CSV and PDF."""

from __future__ import annotations

from datetime import date

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from common.days import business_date_of
from common.forms import IsoDateInput
from floor.access import VIEW_REPORTS
from floor.models import Venue
from workspace.access import workspace_page
from workspace.dayclose.export import dayclose_csv, dayclose_pdf
from workspace.dayclose.selectors import dayclose_day_default, lines_total
from workspace.dayclose.services import DayCloseRefused, dayclose_lines, dayclose_sign
from workspace.shell import venue_current

SIGN_OFF = "workspace.add_dayclose"


class DayForm(forms.Form):
    day = forms.DateField(label=gettext_lazy("Business day"), widget=IsoDateInput())


def _day(request: HttpRequest, venue: Venue) -> date:
    """The day asked for, else the last closed business day the venue played."""
    form = DayForm(request.GET)
    if form.is_valid():
        return form.cleaned_data["day"]
    return dayclose_day_default(venue, business_date_of(timezone.now(), venue.time_zone))


def _parse(venue_code: str, day: str) -> tuple[Venue, date]:
    venue = get_object_or_404(Venue, code=venue_code)
    try:
        return venue, date.fromisoformat(day)
    except ValueError:
        raise Http404(_("Not a date.")) from None


@workspace_page(VIEW_REPORTS)
def dayclose_view(request: HttpRequest) -> HttpResponse:
    venue = venue_current(request)
    if venue is None:
        raise Http404(_("No venue yet."))
    day = _day(request, venue)
    if request.method == "POST":
        if not request.user.has_perm(SIGN_OFF):
            messages.error(request, _("Only a floor manager can sign off a day."))
        else:
            try:
                dayclose_sign(
                    venue, day, request.user, now=timezone.now(), note=request.POST.get("note", "")[:500]
                )
                messages.success(request, _("The business day of %(day)s is signed off.") % {"day": day})
            except DayCloseRefused as refusal:
                messages.error(request, str(refusal))
        return redirect(f"{reverse('workspace:dayclose')}?day={day.isoformat()}")
    lines, closed = dayclose_lines(venue, day)
    context = {
        "title": _("Day close: %(venue)s, %(day)s")
        % {"venue": venue.name, "day": formats.date_format(day, "SHORT_DATE_FORMAT")},
        "venue": venue,
        "day": day,
        "form": DayForm(initial={"day": day}),
        "lines": lines,
        "totals": lines_total(lines),
        "closed": closed,
        "tolerance": closed.tolerance_cents if closed else settings.DAY_CLOSE_TOLERANCE_CENTS,
        "can_sign": request.user.has_perm(SIGN_OFF),
    }
    return render(request, "workspace/dayclose/day.html", context)


@workspace_page(VIEW_REPORTS)
def dayclose_csv_view(request: HttpRequest, venue: str, day: str) -> HttpResponse:
    found, when = _parse(venue, day)
    lines, _closed = dayclose_lines(found, when)
    response = HttpResponse(dayclose_csv(lines), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="day-close-{found.code}-{when}.csv"'
    return response


@workspace_page(VIEW_REPORTS)
def dayclose_pdf_view(request: HttpRequest, venue: str, day: str) -> HttpResponse:
    found, when = _parse(venue, day)
    lines, closed = dayclose_lines(found, when)
    tolerance = closed.tolerance_cents if closed else settings.DAY_CLOSE_TOLERANCE_CENTS
    response = HttpResponse(
        dayclose_pdf(found, when, lines, closed, tolerance), content_type="application/pdf"
    )
    response["Content-Disposition"] = f'inline; filename="day-close-{found.code}-{when}.pdf"'
    return response
