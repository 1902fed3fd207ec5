"""Reads of the floor app."""

from __future__ import annotations

from datetime import date

from django.db.models import Q, QuerySet

from common.days import business_days_bounds
from floor.models import SignificantEvent, Venue


def significant_events(venue: Venue, day: date) -> QuerySet[SignificantEvent]:
    """The significant-events register of one venue's business day (common.days, by the venue's clock):
    its own rows and the house-wide ones (no venue: a link across both venues), in time order."""
    start, end = business_days_bounds(day, day, venue.time_zone)
    return (
        SignificantEvent.objects.filter(Q(venue=venue) | Q(venue__isnull=True), at__gte=start, at__lt=end)
        .select_related("user", "venue")
        .order_by("at", "id")
    )
