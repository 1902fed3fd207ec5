"""The hits desk: the hits that need a person now, oldest first, with what each needs next."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _

from floor.models import Venue
from jackpots.models import Hit

VERIFY = "verify"
SECOND_VERIFY = "second_verify"
PAY = "pay"


@dataclass(frozen=True)
class DeskRow:
    hit: Hit
    needs: str
    age_seconds: int

    @property
    def machine(self) -> str:
        return self.hit.machine.asset_number if self.hit.machine_id else _("table")

    @property
    def location(self) -> str:
        machine = self.hit.machine
        if machine is None:
            return ""
        bank = f" · {machine.bank.code}" if machine.bank_id else ""
        return f"{machine.room.name}{bank}"

    @property
    def needs_label(self) -> str:
        if self.needs == VERIFY:
            return _("to verify")
        if self.needs == SECOND_VERIFY:
            return _("waiting for a second person: verified by %(name)s") % {
                "name": person(self.hit.verified_by)
            }
        return _("to pay")


def person(user) -> str:
    """A person as the floor reads them: the full name, else the user name."""
    if user is None:
        return ""
    return user.get_full_name() or user.get_username()


def hit_needs(hit: Hit) -> str:
    if hit.state == Hit.State.VERIFIED:
        return PAY
    return SECOND_VERIFY if hit.verified_by_id is not None else VERIFY


def desk_hits(venue: Venue | None, now: datetime) -> list[DeskRow]:
    """Open hits (to verify or pay) of the venue's machines, and table or machine-less prizes, which every
    venue's desk shows; oldest first, as they have waited longest."""
    where = Q(machine__isnull=True)
    if venue is not None:
        where |= Q(machine__room__venue=venue)
    hits = (
        Hit.objects.filter(where, state__in=[Hit.State.HIT, Hit.State.VERIFIED])
        .select_related("machine__room", "machine__bank", "level__progressive", "verified_by")
        .order_by("at", "id")
    )
    return [DeskRow(hit, hit_needs(hit), max(0, int((now - hit.at).total_seconds()))) for hit in hits]


def hits_recent_closed(venue: Venue | None, limit: int = 10) -> list[Hit]:
    """The latest paid or voided hits: what the desk just did, with their slips."""
    where = Q(machine__isnull=True)
    if venue is not None:
        where |= Q(machine__room__venue=venue)
    return list(
        Hit.objects.filter(where, state__in=[Hit.State.PAID, Hit.State.VOIDED])
        .select_related("machine__room", "level__progressive", "paid_by", "voided_by")
        .annotate(closed_at=Coalesce("paid_at", "voided_at"))
        .order_by("-closed_at", "-id")[:limit]
    )
