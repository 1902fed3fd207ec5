"""A paid hit's or prize part's slips: made once when it is paid and stored with it (the PDF and the facts
printed), so a reprint is the very slip that was handed over, even if a name or a venue is renamed later,
marked COPIA / COPY with its copy number, who printed it and when."""

from __future__ import annotations

import dataclasses
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import translation

from common.money import cents_money
from jackpots.models import Hit
from jackpots.services.hit_numbers import hit_label
from jackpots.services.hit_payment import hit_payer
from jackpots.winner import WinnerIdentity
from tables.models import PrizePart
from tables.services.parts import part_label
from workspace.desk.selectors import person
from workspace.models import HitSlip, SlipReprint
from workspace.slips.pdf import SlipFacts, slip_pdf
from workspace.slips.words import amount_in_words

SLIP_LANGUAGE = "it"  # the slip's first language: its amounts and dates are written the Italian way
STAMP = "%d/%m/%Y %H:%M:%S"


class SlipRefused(Exception):
    """A slip asked for a hit that is not paid: the sentence says so."""


def _winner(record: WinnerIdentity) -> str:
    if not record.winner_name:
        return ""
    return (
        f"{record.winner_name} - {record.get_winner_document_type_display()} {record.winner_document_number} "
        f"({record.winner_document_country})"
    )


def _money(cents: int, currency: str) -> str:
    with translation.override(SLIP_LANGUAGE):
        return cents_money(cents, currency)


def _hit_facts(hit: Hit) -> SlipFacts:
    machine = hit.machine
    venue = machine.room.venue if machine is not None else None
    zone = ZoneInfo(venue.time_zone if venue else settings.TIME_ZONE)
    verifiers = [person(user) for user in (hit.verified_by, hit.second_verified_by) if user is not None]
    # An award the machine credited short and attendants completed: their slip is for their part.
    cents = hit.attendant_cents if hit.paid_by_id is not None else hit.payout_cents
    return SlipFacts(
        venue=venue.name if venue else "Casinò di Venezia",
        machine=machine.asset_number if machine else "table",
        location=f"{machine.room.name}, {machine.game_title}" if machine else hit.level.progressive.name,
        level=f"{hit.level.progressive.name} - {hit.level.name}",
        amount=_money(cents, "EUR"),
        words_it=amount_in_words(cents, "it"),
        words_en=amount_in_words(cents, "en"),
        at=hit.at.astimezone(zone).strftime(STAMP),
        number=f"{hit_label(hit)} ({hit.level.name} n. {hit.number})",
        verifiers=verifiers,
        payer=person(hit.paid_by) if hit.paid_by_id is not None else hit_payer(hit),
        paid_at=hit.paid_at.astimezone(zone).strftime(STAMP) if hit.paid_at else "",
        winner=_winner(hit),
    )


def _part_facts(part: PrizePart) -> SlipFacts:
    seat, hit = part.seat, part.share.hit
    table = seat.round.table
    zone = ZoneInfo(table.venue.time_zone)
    verifiers = [person(user) for user in (part.verified_by, part.second_verified_by) if user is not None]
    payer = f"table {part.paid_by_table.code}" if part.paid_by_table_id else person(part.paid_by)
    currency = hit.level.progressive.currency
    return SlipFacts(
        venue=table.venue.name,
        machine=table.code,
        location=f"round {seat.round.round_id}, seat {seat.seat}, {seat.get_hand_display()}",
        level=f"{hit.level.progressive.name} - {hit.level.name}",
        amount=_money(part.amount_cents, part.currency),
        words_it=amount_in_words(part.amount_cents, "it") if part.currency == "EUR" else "",
        words_en=amount_in_words(part.amount_cents, "en") if part.currency == "EUR" else "",
        at=seat.round.at.astimezone(zone).strftime(STAMP),
        number=part_label(part),
        verifiers=verifiers,
        payer=payer,
        paid_at=part.paid_at.astimezone(zone).strftime(STAMP) if part.paid_at else "",
        winner=_winner(part),
        prize=f"{hit_label(hit)}: {_money(part.share.prize_cents, currency)}",
    )


def _loaded(target: Hit | PrizePart) -> Hit | PrizePart:
    if isinstance(target, PrizePart):
        return PrizePart.objects.select_related(
            "share__hit__level__progressive",
            "seat__round__table__venue",
            "verified_by",
            "second_verified_by",
            "paid_by",
            "paid_by_table",
        ).get(pk=target.pk)
    return Hit.objects.select_related(
        "machine__room__venue",
        "level__progressive",
        "verified_by",
        "second_verified_by",
        "paid_by",
        "paid_by_machine",
    ).get(pk=target.pk)


def _slip_find(target: Hit | PrizePart, variant: str) -> HitSlip | None:
    if isinstance(target, PrizePart):
        return HitSlip.objects.filter(part=target, variant=variant).first()
    return HitSlip.objects.filter(hit=target, part__isnull=True, variant=variant).first()


def slips_store(target: Hit | PrizePart) -> list[HitSlip]:
    """Both formats of a paid hit's (or part's) slip, made and stored unless stored already."""
    if target.state != Hit.State.PAID:
        raise SlipRefused(target.pk)
    target = _loaded(target)
    facts = _part_facts(target) if isinstance(target, PrizePart) else _hit_facts(target)
    hit = target.share.hit if isinstance(target, PrizePart) else target
    part = target if isinstance(target, PrizePart) else None
    slips = []
    for variant in HitSlip.Variant.values:
        slip = _slip_find(target, variant)
        if slip is None:
            try:
                with transaction.atomic():
                    slip = HitSlip.objects.create(
                        hit=hit,
                        part=part,
                        variant=variant,
                        pdf=slip_pdf(facts, variant),
                        facts=dataclasses.asdict(facts),
                    )
            except IntegrityError:  # printed at the same moment by someone else: theirs is the slip
                slip = _slip_find(target, variant)
        slips.append(slip)
    return slips


def slip_print(target: Hit | PrizePart, variant: str, user) -> bytes:
    """The slip to print: the first time the stored original (copy 0); every later time a copy, numbered,
    with who printed it and when (a slip stored before its facts were kept is served as it is)."""
    slip = _slip_find(target, variant) or next(s for s in slips_store(target) if s.variant == variant)
    with transaction.atomic():
        HitSlip.objects.select_for_update().filter(pk=slip.pk).exists()  # copies numbered one at a time
        copy = slip.reprints.count()
        reprint = SlipReprint.objects.create(slip=slip, copy=copy, printed_by=user)
    if copy == 0 or not slip.facts:
        return bytes(slip.pdf)
    zone = ZoneInfo(settings.TIME_ZONE)
    mark = f"COPIA / COPY n. {copy} - {person(user)}, {reprint.printed_at.astimezone(zone).strftime(STAMP)}"
    return slip_pdf(SlipFacts(**{**slip.facts, "copy": mark}), variant)
