"""Instants a caller sends (an event's or a table round's ``at``): one parser, with bounds.

RFC 3339 (section 5.6) with the offset required; the offset within ±14:00, the furthest any time zone is
from UTC (Kiribati, +14:00), which also keeps every instant the window admits convertible to UTC; and the
instant within the server's window, EVENT_MAX_AGE_SECONDS back (a gateway that buffered an outage sends
late) to EVENT_MAX_FUTURE_SECONDS ahead (clock drift). Outside it nothing downstream can make sense of the
instant (business days, hour summaries, the order of play), so it is refused where it enters.

The events API parses tens of thousands of these a second: one regular expression decides what is
accepted, ``fromisoformat`` builds the datetime from the text it matched (its constructor refuses
impossible dates and times), an offset from a cache, two comparisons; no per-value serializer.
Upper-casing and rewriting the text for ``fromisoformat`` first cost twice as much (a tenth of an event
post's time, py-spy); ``tests/common/test_times.py`` holds the two ways equal.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone

from django.conf import settings

# Full date, T (or a space, per the RFC's note), time, optional fraction, offset. ASCII digits only: \d
# would take other scripts' digits, which no RFC 3339 text has.
_RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?"
    r"(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))"
)
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


@functools.lru_cache(maxsize=256)
def _offset(sign: str, hours: str, minutes: str) -> timezone | None:
    """The zone of an offset's text, None beyond ±14:00 (no zone is further; the database refuses some);
    ValueError for an offset no datetime can have (minutes past 59, a day or more), as fromisoformat
    refuses them. A handful of offsets are ever sent: each is built once."""
    if int(minutes) > 59 or int(hours) > 23:
        raise ValueError(hours, minutes)
    offset = timedelta(hours=int(hours), minutes=int(minutes))
    if offset > MAX_OFFSET:
        return None
    # +00:00 and -00:00 are UTC itself, as fromisoformat gives them.
    return timezone(-offset if sign == "-" else offset) if offset else UTC


def instant_parse(value: object, window: TimeWindow) -> datetime:
    """``value`` as an aware datetime within ``window``, or TimeRejected with the code that says why."""
    match = _RFC3339.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise TimeRejected("invalid_at")
    sign, offset_hours, offset_minutes = match.group(8, 9, 10)
    try:
        zone = UTC if sign is None else _offset(sign, offset_hours, offset_minutes)
        instant = _instant_build(match, zone)
    except ValueError:
        raise TimeRejected("invalid_at", f"`at` is not a valid date-time: {value!r}.") from None
    if zone is None:
        raise TimeRejected("invalid_at", f"The offset of `at` is outside ±14:00: {value!r}.")
    # Aware comparisons never convert to UTC, so year 1 or 9999 with any offset compare safely.
    if instant < window.earliest:
        raise TimeRejected("at_too_old", f"`at` is more than {window.max_age_seconds} seconds old.")
    if instant > window.latest:
        raise TimeRejected(
            "at_in_future", f"`at` is more than {window.max_future_seconds} seconds in the future."
        )
    return instant


def _instant_build(match: re.Match[str], zone: timezone | None) -> datetime:
    """The datetime of a text the grammar matched. ``fromisoformat`` (C) builds it in a fifth of the time
    the groups take (0.2 against 1 µs), and on such a text it reads what the groups would: it cuts a
    fraction past microseconds, takes any separator and an upper-case Z, and the offset is checked
    beforehand (``_offset``). A lower-case z, which it refuses, is built from the groups."""
    value = match.string
    if zone is not None and value[-1] != "z":
        return datetime.fromisoformat(value)
    year, month, day, hour, minute, second, fraction = match.group(1, 2, 3, 4, 5, 6, 7)
    # datetime keeps microseconds; RFC 3339 allows any precision, so finer digits are cut, not refused.
    microsecond = int(fraction[:6].ljust(6, "0")) if fraction else 0
    return datetime(
        int(year), int(month), int(day), int(hour), int(minute), int(second), microsecond, zone or UTC
    )
