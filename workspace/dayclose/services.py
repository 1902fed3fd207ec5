"""Signing off a business day: the reconciliation and the progressive register are frozen as signed, with
who and when. A signed day cannot be signed again or changed; a day still running cannot be signed."""

from __future__ import annotations

from datetime import date, datetime

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from common.days import business_date_of, business_days_bounds
from floor.models import Venue
from workspace.dayclose.register import RegisterRow, day_register
from workspace.dayclose.selectors import Line, day_reconcile, venue_first_day
from workspace.models import DayClose


class DayCloseRefused(Exception):
    """A sign-off that may not happen; the message is a sentence for people."""


def dayclose_get(venue: Venue, day: date) -> DayClose | None:
    return DayClose.objects.select_related("signed_by").filter(venue=venue, business_day=day).first()


def dayclose_lines(venue: Venue, day: date) -> tuple[list[Line], DayClose | None]:
    """The lines as signed when the day is signed off, else as they stand now."""
    closed = dayclose_get(venue, day)
    if closed is not None:
        return [Line.from_json(data) for data in closed.lines], closed
    return day_reconcile(venue, day, settings.DAY_CLOSE_TOLERANCE_CENTS), None


def dayclose_register(venue: Venue, day: date) -> tuple[list[RegisterRow], DayClose | None]:
    """The progressive register as signed when the day is signed off (a day signed before the register
    was part of the day close: computed from the ledger, which gives the same rows), else as it stands."""
    closed = dayclose_get(venue, day)
    if closed is not None and closed.register is not None:
        return [RegisterRow.from_json(data) for data in closed.register], closed
    return day_register(venue, day), closed


def dayclose_sign(venue: Venue, day: date, user, *, now: datetime, note: str = "") -> DayClose:
    """Sign off a business day that is over and on or after the venue's first (a row signed for year 1
    could never be removed: the table is append-only)."""
    today = business_date_of(now, venue.time_zone)
    # A day after today is refused before its bounds are computed (the day after 9999-12-31 has none).
    if day > today or now < business_days_bounds(day, day, venue.time_zone)[1]:
        raise DayCloseRefused(
            _("The business day of %(day)s is not over yet: sign it off after it closes.") % {"day": day}
        )
    first = venue_first_day(venue)
    if first is None or day < first:
        raise DayCloseRefused(
            _("%(venue)s has nothing to sign off before its first business day here, %(first)s.")
            % {"venue": venue.code, "first": first or today}
        )
    tolerance = settings.DAY_CLOSE_TOLERANCE_CENTS
    lines = day_reconcile(venue, day, tolerance)
    register = day_register(venue, day)
    try:
        with transaction.atomic():
            return DayClose.objects.create(
                venue=venue,
                business_day=day,
                tolerance_cents=tolerance,
                lines=[line.as_json() for line in lines],
                register=[row.as_json() for row in register],
                signed_by=user,
                signed_at=now,
                note=note.strip(),
            )
    except IntegrityError:
        raise DayCloseRefused(
            _("The business day of %(day)s is already signed off and cannot change.") % {"day": day}
        ) from None
