"""Instants a caller sends (an event's or a table round's ``at``): one parser, with bounds.

RFC 3339 (section 5.6) with the offset required; the offset within ±14:00, the furthest any time zone is
from UTC (Kiribati, +14:00), which also keeps every instant the window admits convertible to UTC; and the
instant within the server's window, EVENT_MAX_AGE_SECONDS back (a gateway that buffered an outage sends
late) to EVENT_MAX_FUTURE_SECONDS ahead (clock drift). Outside it nothing downstream can make sense of the
instant (business days, hour summaries, the order of play), so it is refused where it enters.

The events API parses tens of thousands of these a second: a regular expression, ``fromisoformat`` and
three comparisons, no per-value serializer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings

# Full date, T (or a space, per the RFC's note), time, optional fraction, offset.
_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})")
_FRACTION = re.compile(r"(\.\d{6})\d+")
MAX_OFFSET = timedelta(hours=14)

# The sentences of the three codes; a caller's API may use them as its default details.
TIME_ERRORS: dict[str, str] = {
    "invalid_at": "`at` must be an RFC 3339 date-time with an offset within ±14:00.",
    "at_too_old": "`at` is older than the server accepts (by default 7 days).",
    "at_in_future": "`at` is further ahead than the server accepts (by default 5 minutes).",
}


class TimeRejected(ValueError):
    """``code`` is one of TIME_ERRORS; ``detail`` says what was wrong with this value."""

    def __init__(self, code: str, detail: str | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.detail = detail or TIME_ERRORS[code]


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """The instants the server accepts now: earliest..latest, both included."""

    earliest: datetime
    latest: datetime
    max_age_seconds: int
    max_future_seconds: int


def time_window(now: datetime) -> TimeWindow:
    """The window around ``now`` set by EVENT_MAX_AGE_SECONDS and EVENT_MAX_FUTURE_SECONDS."""
    max_age, max_future = settings.EVENT_MAX_AGE_SECONDS, settings.EVENT_MAX_FUTURE_SECONDS
    return TimeWindow(
        earliest=now - timedelta(seconds=max_age),
        latest=now + timedelta(seconds=max_future),
        max_age_seconds=max_age,
        max_future_seconds=max_future,
    )


def instant_parse(value: object, window: TimeWindow) -> datetime:
    """``value`` as an aware datetime within ``window``, or TimeRejected with the code that says why."""
    if not isinstance(value, str) or _RFC3339.fullmatch(value) is None:
        raise TimeRejected("invalid_at")
    text = value.upper().replace(" ", "T")
    # datetime keeps microseconds; RFC 3339 allows any precision, so finer digits are cut, not refused.
    text = _FRACTION.sub(r"\1", text)
    try:
        instant = datetime.fromisoformat(text)
    except ValueError:
        raise TimeRejected("invalid_at", f"`at` is not a valid date-time: {value!r}.") from None
    offset = instant.utcoffset()
    # fromisoformat takes offsets up to ±23:59; beyond ±14:00 no zone is, and the database refuses some.
    if offset is None or not -MAX_OFFSET <= offset <= MAX_OFFSET:
        raise TimeRejected("invalid_at", f"The offset of `at` is outside ±14:00: {value!r}.")
    # Aware comparisons never convert to UTC, so year 1 or 9999 with any offset compare safely.
    if instant < window.earliest:
        raise TimeRejected("at_too_old", f"`at` is more than {window.max_age_seconds} seconds old.")
    if instant > window.latest:
        raise TimeRejected(
            "at_in_future", f"`at` is more than {window.max_future_seconds} seconds in the future."
        )
    return instant
