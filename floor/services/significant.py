"""The one writer of the significant-events register (``floor.models.SignificantEvent``)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.utils import timezone, translation

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


def significant_events_record(rows: Iterable[SignificantEvent]) -> list[SignificantEvent]:
    """Appends many rows in one INSERT: the machines' exceptions and offline marks arrive in bulk, and a
    row each would add a query per event to the events API. Same rules as significant_event_record."""
    rows = list(rows)
    for row in rows:
        if row.kind not in SignificantEvent.Kind.values:
            raise ValueError(f"unknown significant event kind {row.kind!r}")
        row.subject, row.reference = row.subject[:120], row.reference[:80]
    return SignificantEvent.objects.bulk_create(rows) if rows else []


def key_event_record(kind: str, credential, user=None) -> SignificantEvent:
    """A key (machine, gateway, table) or screen token issued or revoked. The key models live in higher
    apps, so each says what the register shows of it: ``significant_label()`` -> (venue id, subject,
    machine id), and its display prefix (never the key) is the reference."""
    venue_id, subject, machine_id = credential.significant_label()
    prefix = getattr(credential, "prefix", "") or getattr(credential, "token_prefix", "")
    with translation.override("en"):  # the stored detail does not depend on the issuer's language
        name = str(credential._meta.verbose_name)
    action = "issued" if kind == SignificantEvent.Kind.KEY_ISSUED else "revoked"
    return significant_event_record(
        kind,
        venue=venue_id,
        subject=subject,
        machine_id=machine_id,
        user=user,
        detail=f"{name} {prefix}… {action}",
        reference=prefix,
    )


def credential_listener(action: str, credential, user) -> None:
    """common.credentials' listener (registered in floor.apps): every key and screen token issued or
    revoked, in the register."""
    kind = SignificantEvent.Kind.KEY_ISSUED if action == "issued" else SignificantEvent.Kind.KEY_REVOKED
    key_event_record(kind, credential, user)
