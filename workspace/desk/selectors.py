"""The hits desk: the hits that need a person now, oldest first, with what each needs next."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _

from floor.models import Venue
from jackpots.models import Hit
from tables.models import PrizePart

VERIFY = "verify"
SECOND_VERIFY = "second_verify"
PAY = "pay"


@dataclass(frozen=True)
class DeskRow:
    """One payment to make: a hit, or one winner's part of a shared table prize (``part``)."""

    hit: Hit
    needs: str
    age_seconds: int
    part: PrizePart | None = None

    @property
    def key(self) -> str:
        return f"part-{self.part.pk}" if self.part is not None else f"hit-{self.hit.pk}"

    @property
    def machine(self) -> str:
        if self.part is not None:
            return self.part.seat.round.table.code
        return self.hit.machine.asset_number if self.hit.machine_id else _("table")

    @property
    def location(self) -> str:
        if self.part is not None:
            seat = self.part.seat
            return _("%(venue)s · round %(round)s · seat %(seat)s · %(hand)s") % {
                "venue": seat.round.table.venue.code,
                "round": seat.round.round_id,
                "seat": seat.seat,
                "hand": seat.get_hand_display(),
            }
        machine = self.hit.machine
        if machine is None:
            return ""
        bank = f" · {machine.bank.code}" if machine.bank_id else ""
        return f"{machine.room.name}{bank}"

    @property
    def amount_cents(self) -> int:
        return self.part.amount_cents if self.part is not None else self.hit.payout_cents

    @property
    def currency(self) -> str:
        return self.part.currency if self.part is not None else "EUR"

    @property
    def verified_by(self):
        return (self.part or self.hit).verified_by

    @property
    def needs_label(self) -> str:
        if self.needs == VERIFY:
            return _("to verify")
        if self.needs == SECOND_VERIFY:
            return _("waiting for a second person: verified by %(name)s") % {"name": person(self.verified_by)}
        return _("to pay")


def person(user) -> str:
    """A person as the floor reads them: the full name, else the user name."""
    if user is None:
        return ""
    return user.get_full_name() or user.get_username()


def hit_needs(hit: Hit | PrizePart) -> str:
    """What a hit or a prize part needs next (their states share the names "verified" and "paid")."""
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
        Hit.objects.filter(where, state__in=[Hit.State.HIT, Hit.State.VERIFIED], prize_share__isnull=True)
        .select_related("machine__room", "machine__bank", "level__progressive", "verified_by")
        .order_by("at", "id")
    )
    rows = [DeskRow(hit, hit_needs(hit), _age(now, hit.at)) for hit in hits]
    rows += [
        DeskRow(part.share.hit, hit_needs(part), _age(now, part.seat.round.at), part)
        for part in _parts_open(venue)
    ]
    return sorted(rows, key=lambda row: (-row.age_seconds, row.hit.pk, row.part.pk if row.part else 0))


def _age(now: datetime, at: datetime) -> int:
    return max(0, int((now - at).total_seconds()))


def _parts_open(venue: Venue | None) -> list[PrizePart]:
    """The parts of shared table prizes the floor pays, at the venue's tables (every venue's without one)."""
    parts = PrizePart.objects.filter(state__in=[PrizePart.State.OPEN, PrizePart.State.VERIFIED])
    if venue is not None:
        parts = parts.filter(seat__round__table__venue=venue)
    return list(
        parts.select_related(
            "share__hit__level__progressive", "seat__round__table__venue", "verified_by"
        ).order_by("seat__round__at", "id")
    )


def parts_recent_closed(venue: Venue | None, limit: int = 10) -> list[PrizePart]:
    """The latest parts the floor paid or that were voided: each with its own slip."""
    parts = PrizePart.objects.filter(
        Q(state=PrizePart.State.PAID, paid_by__isnull=False) | Q(state=PrizePart.State.VOIDED)
    )
    if venue is not None:
        parts = parts.filter(seat__round__table__venue=venue)
    return list(
        parts.select_related("share__hit__level__progressive", "seat__round__table", "paid_by").order_by(
            "-paid_at", "-id"
        )[:limit]
    )


def hits_recent_closed(venue: Venue | None, limit: int = 10) -> list[Hit]:
    """The latest paid or voided hits: what the desk just did, with their slips."""
    where = Q(machine__isnull=True)
    if venue is not None:
        where |= Q(machine__room__venue=venue)
    return list(
        Hit.objects.filter(where, state__in=[Hit.State.PAID, Hit.State.VOIDED], prize_share__isnull=True)
        .select_related("machine__room", "level__progressive", "paid_by", "voided_by")
        .annotate(closed_at=Coalesce("paid_at", "voided_at"))
        .order_by("-closed_at", "-id")[:limit]
    )
