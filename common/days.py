"""Business days: the casino's day runs from BUSINESS_DAY_CLOSE_HOUR local time to the same hour next day."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from django import forms
from django.conf import settings
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _


def business_date_of(instant: datetime, time_zone: str) -> date:
    """The business day an instant belongs to, by the venue's wall clock (DST-safe)."""
    local = instant.astimezone(ZoneInfo(time_zone)).replace(tzinfo=None)
    return (local - timedelta(hours=settings.BUSINESS_DAY_CLOSE_HOUR)).date()


def business_day_start(day: date, time_zone: str) -> datetime:
    """The instant a business day opens."""
    return datetime.combine(day, time(hour=settings.BUSINESS_DAY_CLOSE_HOUR), tzinfo=ZoneInfo(time_zone))


def business_days_bounds(first: date, last: date, time_zone: str) -> tuple[datetime, datetime]:
    """[start, end) instants covering the business days first..last inclusive."""
    return business_day_start(first, time_zone), business_day_start(last + timedelta(days=1), time_zone)


# No event of this system predates it; only rows stored before the events API bounded `at` can.
REPORTABLE_FROM = datetime(2000, 1, 1, tzinfo=UTC)

# The business calendar every staff form and report takes a day from: 2000 (REPORTABLE_FROM) to 2099.
# Beyond it there is nothing to report, and the calendar's own end made 9999-12-31 a 500 (the day after
# the last day, in business_days_bounds, is past date.max).
CALENDAR_FIRST_DAY = REPORTABLE_FROM.date()
CALENDAR_LAST_DAY = date(2099, 12, 31)


class BusinessDayField(forms.DateField):
    """A business day inside the supported calendar (CALENDAR_FIRST_DAY..CALENDAR_LAST_DAY)."""

    default_error_messages = {
        "calendar": _("Business days run from %(first)s to %(last)s."),
    }

    def validate(self, value: date | None) -> None:
        super().validate(value)
        if value is not None and not CALENDAR_FIRST_DAY <= value <= CALENDAR_LAST_DAY:
            raise forms.ValidationError(
                self.error_messages["calendar"],
                code="calendar",
                params={
                    "first": date_format(CALENDAR_FIRST_DAY, "SHORT_DATE_FORMAT"),
                    "last": date_format(CALENDAR_LAST_DAY, "SHORT_DATE_FORMAT"),
                },
            )


def reportable_span(now: datetime) -> tuple[datetime, datetime]:
    """[start, end) of the instants the reports account for.

    The events API takes only instants within the server's window (common.times), so a row outside this
    span was stored before those bounds existed: year 1 or 9999 has no business day to fall in (the
    calendar ends before the close hour is taken off or the venue's offset added), so it is left out.
    """
    return REPORTABLE_FROM, now + timedelta(seconds=settings.EVENT_MAX_FUTURE_SECONDS)
