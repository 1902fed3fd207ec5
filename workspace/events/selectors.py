"""The significant-events register of a venue's business day, narrowed by the page's filters."""

from __future__ import annotations

from datetime import date

from django.db.models import Q, QuerySet

from floor.models import SignificantEvent, Venue
from floor.selectors import significant_events


def significant_events_filtered(
    venue: Venue, day: date, *, kind: str = "", subject: str = "", user: str = ""
) -> QuerySet[SignificantEvent]:
    """``significant_events`` with the filters given: the kind exactly, the machine/level/link text and
    the person (user name, first or last name) as parts, in any case."""
    rows = significant_events(venue, day)
    if kind:
        rows = rows.filter(kind=kind)
    if subject:
        rows = rows.filter(subject__icontains=subject)
    if user:
        rows = rows.filter(
            Q(user__username__icontains=user)
            | Q(user__first_name__icontains=user)
            | Q(user__last_name__icontains=user)
        )
    return rows
