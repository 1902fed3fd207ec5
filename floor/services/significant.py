"""The one writer of the significant-events register (``floor.models.SignificantEvent``)."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from floor.models import SignificantEvent, Venue


def significant_event_record(
    kind: str,
    *,
    venue: Venue | int | None = None,
    at: datetime | None = None,
    subject: str = "",
    machine_id: int | None = None,
    level_id: int | None = None,
    user=None,
    detail: str = "",
    reference: str = "",
) -> SignificantEvent:
    """Appends one row; call it inside the transaction of the change it records, so the two land
    together or not at all. ``venue`` None: the whole house (a link across both venues)."""
    if kind not in SignificantEvent.Kind.values:
        raise ValueError(f"unknown significant event kind {kind!r}")
    venue_id = venue.pk if isinstance(venue, Venue) else venue
    return SignificantEvent.objects.create(
        kind=kind,
        venue_id=venue_id,
        at=at or timezone.now(),
        subject=subject[:120],
        machine_id=machine_id,
        level_id=level_id,
        user=user if getattr(user, "is_authenticated", False) else None,
        detail=detail,
        reference=reference[:80],
    )
