"""One hit number people read aloud and find again: ``NOG-2026-00123``, per venue and business year.

Given once, when the hit is recorded, from a counter row locked for the rest of the recording transaction,
so two hits recorded at once at one venue (on two levels, under two different level locks) never take the
same number. The level's own count (``Hit.number``) stays "the level's n-th hit"."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings

from common.days import business_date_of
from floor.models import Venue
from jackpots.models import Hit, HitNumberCounter

HOUSE_CODE = "CDV"  # a hit with no venue (an attendant's report on a machine-less level): the house


def hit_ref_format(venue_code: str, year: int, n: int) -> str:
    return f"{venue_code}-{year}-{n:05d}"


def hit_ref_next(venue: Venue | None, at: datetime) -> str:
    """The next number of the venue's business year of ``at``; the caller is inside a transaction."""
    code = venue.code if venue is not None else HOUSE_CODE
    zone = venue.time_zone if venue is not None else settings.TIME_ZONE
    year = business_date_of(at, zone).year
    HitNumberCounter.objects.get_or_create(venue_code=code, year=year)
    counter = HitNumberCounter.objects.select_for_update().get(venue_code=code, year=year)
    counter.last += 1
    counter.save(update_fields=["last"])
    return hit_ref_format(code, year, counter.last)


def hit_ref_assign(hit: Hit, venue: Venue | None) -> str:
    """Numbers a hit that has no number yet (numbers are never changed once given)."""
    if hit.ref is None:
        hit.ref = hit_ref_next(venue, hit.at)
        hit.save(update_fields=["ref"])
    return hit.ref


def hit_label(hit: Hit) -> str:
    """The hit as people name it: its number, else (a hit from before numbers) the level's count."""
    return hit.ref or f"{hit.level_id}/{hit.number}"
