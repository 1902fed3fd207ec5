"""A paid hit's slips: made once when the hit is paid and stored with it, so a reprint is the very slip that
was handed over, even if a name or a venue is renamed later."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import IntegrityError, transaction

from common.money import cents_eur_grouped
from jackpots.models import Hit
from workspace.desk.selectors import person
from workspace.models import HitSlip
from workspace.slips.pdf import SlipFacts, slip_pdf
from workspace.slips.words import amount_in_words


class SlipRefused(Exception):
    """A slip asked for a hit that is not paid: the sentence says so."""


def _facts(hit: Hit) -> SlipFacts:
    machine = hit.machine
    venue = machine.room.venue if machine is not None else None
    zone = ZoneInfo(venue.time_zone if venue else settings.TIME_ZONE)
    verifiers = [person(user) for user in (hit.verified_by, hit.second_verified_by) if user is not None]
    # An award the machine credited short and attendants completed: their slip is for their part.
    cents = hit.attendant_cents if hit.paid_by_id is not None else hit.payout_cents
    if hit.paid_by_id is not None:
        payer = person(hit.paid_by)
    elif hit.paid_by_machine_id is not None:
        payer = f"{machine.asset_number} (credit meter)"
    elif hit.paid_by_table_id is not None:
        payer = f"table {hit.paid_by_table.code}"
    else:
        payer = person(hit.paid_by)
    return SlipFacts(
        venue=venue.name if venue else "Casinò di Venezia",
        machine=machine.asset_number if machine else "table",
        location=f"{machine.room.name}, {machine.game_title}" if machine else hit.level.progressive.name,
        level=f"{hit.level.progressive.name} - {hit.level.name}",
        amount=f"€ {cents_eur_grouped(cents)}",
        words_it=amount_in_words(cents, "it"),
        words_en=amount_in_words(cents, "en"),
        at=hit.at.astimezone(zone).strftime("%d/%m/%Y %H:%M:%S"),
        number=f"{hit.number} (id {hit.pk})",
        verifiers=verifiers,
        payer=payer,
        paid_at=hit.paid_at.astimezone(zone).strftime("%d/%m/%Y %H:%M:%S") if hit.paid_at else "",
    )


def hit_slips_store(hit: Hit) -> list[HitSlip]:
    """Both formats of a paid hit's slip, made and stored unless stored already (then nothing changes)."""
    if hit.state != Hit.State.PAID:
        raise SlipRefused(hit.pk)
    hit = Hit.objects.select_related(
        "machine__room__venue",
        "level__progressive",
        "verified_by",
        "second_verified_by",
        "paid_by",
        "paid_by_table",
    ).get(pk=hit.pk)
    facts = _facts(hit)
    slips = []
    for variant in HitSlip.Variant.values:
        slip = HitSlip.objects.filter(hit=hit, variant=variant).first()
        if slip is None:
            try:
                with transaction.atomic():
                    slip = HitSlip.objects.create(hit=hit, variant=variant, pdf=slip_pdf(facts, variant))
            except IntegrityError:  # printed at the same moment by someone else: theirs is the slip
                slip = HitSlip.objects.get(hit=hit, variant=variant)
        slips.append(slip)
    return slips


def hit_slip_get(hit: Hit, variant: str) -> bytes:
    """The stored slip; made now for a hit paid before slips were stored (and kept from then on)."""
    slip = HitSlip.objects.filter(hit=hit, variant=variant).first()
    if slip is None:
        slip = next(s for s in hit_slips_store(hit) if s.variant == variant)
    return bytes(slip.pdf)
