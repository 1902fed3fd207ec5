"""Business days: the casino's day runs from BUSINESS_DAY_CLOSE_HOUR local time to the same hour next day."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings


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


def reportable_span(now: datetime) -> tuple[datetime, datetime]:
    """[start, end) of the instants the reports account for.

    The events API takes only instants within the server's window (common.times), so a row outside this
    span was stored before those bounds existed: year 1 or 9999 has no business day to fall in (the
    calendar ends before the close hour is taken off or the venue's offset added), so it is left out.
    """
    return REPORTABLE_FROM, now + timedelta(seconds=settings.EVENT_MAX_FUTURE_SECONDS)
