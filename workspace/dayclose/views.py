"""Shift and day close: a venue's business day reconciled, signed off by a manager, as CSV and PDF."""

from __future__ import annotations

from datetime import date

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseNotFound
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from common.days import BusinessDayField, business_date_of
from common.forms import IsoDateInput
from floor.access import VIEW_REPORTS
from floor.models import Venue
from workspace.access import workspace_page
from workspace.dayclose.export import dayclose_csv, dayclose_pdf, register_csv, register_pdf
from workspace.dayclose.register import register_total
from workspace.dayclose.selectors import dayclose_day_default, lines_total
from workspace.dayclose.services import DayCloseRefused, dayclose_lines, dayclose_register, dayclose_sign
from workspace.shell import venue_current

SIGN_OFF = "workspace.add_dayclose"


NOTE_MAX_CHARS = 500


class DayForm(forms.Form):
    day = BusinessDayField(label=gettext_lazy("Business day"), widget=IsoDateInput())


class SignOffForm(forms.Form):
    # A CharField refuses NUL characters (PostgreSQL cannot store them: they were a 500).
    note = forms.CharField(label=gettext_lazy("Note"), required=False, max_length=NOTE_MAX_CHARS)


def _day(request: HttpRequest, venue: Venue) -> tuple[date, str | None]:
    """The day asked for, else the last closed business day the venue played; and why the one asked for
    cannot be shown, if it cannot."""
    fallback = dayclose_day_default(venue, business_date_of(timezone.now(), venue.time_zone))
    if not request.GET.get("day"):
        return fallback, None
    form = DayForm(request.GET)
    if form.is_valid():
        return form.cleaned_data["day"], None
    return fallback, " ".join(form.errors["day"])


def _parse(venue_code: str, day: str) -> tuple[Venue | None, date | None, HttpResponse | None]:
    """The venue and day of an export's path, or the 404 (no such venue) or 400 (no such business day)
    that says why it cannot be exported."""
    venue = Venue.objects.filter(code=venue_code).first()
    if venue is None:
        sentence = _("There is no venue with the code %(code)s.") % {"code": venue_code[:40]}
        return None, None, HttpResponseNotFound(sentence, content_type="text/plain; charset=utf-8")
    form = DayForm({"day": day})
    if not form.is_valid():
        return venue, None, HttpResponseBadRequest(" ".join(form.errors["day"]), content_type="text/plain")
    return venue, form.cleaned_data["day"], None


def _sign(request: HttpRequest, venue: Venue, day: date) -> str | None:
    """Sign the day off; the sentence that refuses it, if refused."""
    if not request.user.has_perm(SIGN_OFF):
        return _("Only a floor manager can sign off a day.")
    form = SignOffForm(request.POST)
    if not form.is_valid():
        return " ".join(form.errors["note"])
    try:
        dayclose_sign(venue, day, request.user, now=timezone.now(), note=form.cleaned_data["note"])
    except DayCloseRefused as refusal:
        return str(refusal)
    messages.success(request, _("The business day of %(day)s is signed off.") % {"day": day})
    return None


@workspace_page(VIEW_REPORTS)
def dayclose_view(request: HttpRequest) -> HttpResponse:
    venue = venue_current(request)
    if venue is None:
        raise Http404(_("No venue yet."))
    day, refused = _day(request, venue)
    if request.method == "POST" and refused is None:
        refused = _sign(request, venue, day)
        if refused is None:
            return redirect(f"{reverse('workspace:dayclose')}?day={day.isoformat()}")
    if refused is not None:
        # Nothing changed: the page of the day (or the last closed day) says why, with a 400.
        messages.error(request, refused)
    lines, closed = dayclose_lines(venue, day)
    register, _closed = dayclose_register(venue, day)
    context = {
        "title": _("Day close: %(venue)s, %(day)s")
        % {"venue": venue.name, "day": formats.date_format(day, "SHORT_DATE_FORMAT")},
        "venue": venue,
        "day": day,
        "form": DayForm(initial={"day": day}),
        "lines": lines,
        "totals": lines_total(lines),
        "register": register,
        "register_totals": register_total(register),
        "closed": closed,
        "tolerance": closed.tolerance_cents if closed else settings.DAY_CLOSE_TOLERANCE_CENTS,
        "can_sign": request.user.has_perm(SIGN_OFF),
    }
    return render(request, "workspace/dayclose/day.html", context, status=200 if refused is None else 400)


@workspace_page(VIEW_REPORTS)
def dayclose_csv_view(request: HttpRequest, venue: str, day: str) -> HttpResponse:
    found, when, refused = _parse(venue, day)
    if refused is not None:
        return refused
    lines, _closed = dayclose_lines(found, when)
    response = HttpResponse(dayclose_csv(lines), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="day-close-{found.code}-{when}.csv"'
    return response


@workspace_page(VIEW_REPORTS)
def dayclose_pdf_view(request: HttpRequest, venue: str, day: str) -> HttpResponse:
    found, when, refused = _parse(venue, day)
    if refused is not None:
        return refused
    lines, closed = dayclose_lines(found, when)
    tolerance = closed.tolerance_cents if closed else settings.DAY_CLOSE_TOLERANCE_CENTS
    response = HttpResponse(
        dayclose_pdf(found, when, lines, closed, tolerance), content_type="application/pdf"
    )
    response["Content-Disposition"] = f'inline; filename="day-close-{found.code}-{when}.pdf"'
    return response


@workspace_page(VIEW_REPORTS)
def register_csv_view(request: HttpRequest, venue: str, day: str) -> HttpResponse:
    found, when, refused = _parse(venue, day)
    if refused is not None:
        return refused
    rows, _closed = dayclose_register(found, when)
    response = HttpResponse(register_csv(found, when, rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="register-{found.code}-{when}.csv"'
    return response


@workspace_page(VIEW_REPORTS)
def register_pdf_view(request: HttpRequest, venue: str, day: str) -> HttpResponse:
    found, when, refused = _parse(venue, day)
    if refused is not None:
        return refused
    rows, closed = dayclose_register(found, when)
    response = HttpResponse(register_pdf(found, when, rows, closed), content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="register-{found.code}-{when}.pdf"'
    return response
