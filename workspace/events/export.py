"""The significant-events register of a business day as CSV, fixed columns (docs/significant-events.md)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from zoneinfo import ZoneInfo

from floor.models import SignificantEvent, Venue
from workspace.inventory.resources import cell_escape

HEADER = [
    "id",
    "at",
    "venue",
    "kind",
    "subject",
    "machine_id",
    "level_id",
    "user",
    "detail",
    "reference",
]


def _row(event: SignificantEvent, zone: ZoneInfo) -> list:
    return [
        event.pk,
        event.at.astimezone(zone).isoformat(timespec="seconds"),
        event.venue.code if event.venue_id is not None else "",
        event.kind,
        event.subject,
        "" if event.machine_id is None else event.machine_id,
        "" if event.level_id is None else event.level_id,
        event.user.get_username() if event.user_id is not None else "",
        event.detail,
        event.reference,
    ]


def significant_events_csv(venue: Venue, events: Iterable[SignificantEvent]) -> str:
    """One row per event, times by the venue's clock with their UTC offset."""
    zone = ZoneInfo(venue.time_zone)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(HEADER)
    # Text a person typed (a void's reason) that a spreadsheet would run as a formula gets a ' first.
    writer.writerows([cell_escape(cell) for cell in _row(event, zone)] for event in events)
    return out.getvalue()
