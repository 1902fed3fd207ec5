"""Reads of the jackpots app. Public views never see a mystery trigger, a reserve or a staged parameter:
``progressive_public`` builds the only shape the API and the signs get."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import Prefetch, QuerySet
from django.utils import timezone

from jackpots.models import Hit, Level, Progressive
from slots.models import MachineEvent


def eur(cents: int) -> str:
    """Cents as euros with two decimals, e.g. 152341 → "1523.41"."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"


def eur_from_mc(millicents: int) -> str:
    """Rounded down: a sign never shows money the pool does not hold (DESIGN "Money")."""
    return eur(millicents // 1000)


def progressives_list() -> QuerySet[Progressive]:
    return Progressive.objects.prefetch_related(
        Prefetch("levels", queryset=Level.objects.order_by("position", "id")),
        "members__machine__room__venue",
    )


def level_last_hit(level: Level) -> Hit | None:
    return (
        Hit.objects.filter(level=level)
        .exclude(state=Hit.State.VOIDED)
        .select_related("machine")
        .order_by("-number", "-id")
        .first()
    )


def level_hits_recent(level: Level, count: int = 25) -> QuerySet[Hit]:
    """The last wins of a level (NY 5320.8(b) keeps at least 25)."""
    return Hit.objects.filter(level=level).select_related("machine").order_by("-number", "-id")[:count]


def progressive_link_up(progressive: Progressive) -> bool:
    """Down when an event of a member machine has waited longer than LINK_STALE_AFTER_SECONDS."""
    stale = timezone.now() - timedelta(seconds=settings.LINK_STALE_AFTER_SECONDS)
    return not MachineEvent.objects.filter(
        pending=True, received_at__lt=stale, machine__memberships__progressive=progressive
    ).exists()


def progressive_public(progressive: Progressive) -> dict:
    venues = sorted({member.machine.room.venue.code for member in progressive.members.all()})
    levels = []
    for level in progressive.levels.all():
        last = level_last_hit(level)
        levels.append(
            {
                "id": level.id,
                "name": level.name,
                "amount_eur": eur_from_mc(level.current_mc),
                "reset_eur": eur_from_mc(level.reset_mc),
                "seq": level.seq,
                "last_hit": None
                if last is None
                else {
                    "at": last.at,
                    "amount_eur": eur(last.amount_cents),
                    "machine": last.machine.asset_number if last.machine else None,
                },
            }
        )
    return {
        "id": progressive.id,
        "name": progressive.name,
        "kind": progressive.kind,
        "currency": progressive.currency,
        "venues": venues,
        "link": "up" if progressive_link_up(progressive) else "down",
        "levels": levels,
    }
