"""What a venue's SAS gateway tells the server: the outcome of a mystery award (``award_result``).

The first answer for an award is recorded, in one transaction under the hit's row lock; the same answer
again changes nothing (a gateway re-sends what it is not sure reached us), another answer is refused.
``paid`` with the whole award pays the hit by the machine (no attendant, no user: the ``SasAward`` row is
its record); ``paid`` with less (0 included) records the machine's part and leaves the rest on the desk for
the attendants, with a floor alert (``hit_machine_award_record``); more than the award is refused
(``award_overpaid``); ``handpay`` leaves the hit open for the attendants' verify and pay.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from floor.models import SignificantEvent, Venue
from floor.services.significant import significant_event_record
from gatewaylink.models import SasAward
from jackpots.models import Hit, HitKind
from slots.models import MachineAlert

logger = logging.getLogger(__name__)

# The stable codes of the gateway channel's refusals, each with its sentence (gateway/README.md).
GATEWAY_ERRORS: dict[str, str] = {
    "invalid_message": "A message must be a JSON object with a known `type`.",
    "invalid_award": "`award` must be the integer id of an award sent to this gateway.",
    "unknown_award": "No award with this id was sent to this gateway.",
    "machine_mismatch": "`machine` is not the machine the award was sent for.",
    "amount_mismatch": "`amount` is not the amount the award asked for.",
    "invalid_status": "`status` must be paid or handpay.",
    "invalid_paid": "`paid` must be an integer number of cents, 0 or more.",
    "award_overpaid": "`paid` is more than the award: a machine never credits more than it was asked.",
    "award_answered": "This award was already answered with another outcome.",
}


class GatewayRefused(Exception):
    """A gateway message refused with one of GATEWAY_ERRORS; nothing was changed."""

    def __init__(self, code: str, award: object = None) -> None:
        super().__init__(code)
        self.code = code
        self.award = award

    def message(self) -> dict:
        frame = {"type": "error", "error": self.code, "detail": GATEWAY_ERRORS[self.code]}
        if isinstance(self.award, int) and not isinstance(self.award, bool):
            frame["award"] = self.award
        return frame


@dataclass(frozen=True)
class AwardAnswer:
    award: int
    status: str
    paid: int


def _whole_cents(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def award_answer_parse(message: dict) -> AwardAnswer:
    """The checked fields of an ``award_result`` (without looking at the database)."""
    award = _whole_cents(message.get("award"))
    if award is None or award <= 0:
        raise GatewayRefused("invalid_award")
    status = message.get("status")
    if status not in SasAward.Status.values:
        raise GatewayRefused("invalid_status", award)
    paid = 0
    if status == SasAward.Status.PAID:
        paid = _whole_cents(message.get("paid"))
        if paid is None or paid < 0:
            raise GatewayRefused("invalid_paid", award)
    return AwardAnswer(award, status, paid)


def _award_hit_lock(answer: AwardAnswer, venue_id: int, message: dict) -> Hit:
    hit = (
        Hit.objects.select_for_update(of=("self",))
        .select_related("machine")
        .filter(
            id=answer.award,
            kind=HitKind.MYSTERY,
            machine__room__venue_id=venue_id,
            machine__sas_address__isnull=False,
        )
        .first()
    )
    if hit is None:
        raise GatewayRefused("unknown_award", answer.award)
    if message.get("machine") != hit.machine.asset_number:
        raise GatewayRefused("machine_mismatch", answer.award)
    if message.get("amount") != hit.amount_cents or _whole_cents(message.get("amount")) is None:
        raise GatewayRefused("amount_mismatch", answer.award)
    if answer.paid > hit.amount_cents:
        raise GatewayRefused("award_overpaid", answer.award)
    return hit


def award_result_record(venue_id: int, message: dict) -> dict:
    """Records the gateway's ``award_result``; returns the ``award_recorded`` acknowledgement (also for a
    replay of the recorded answer). Raises GatewayRefused, changing nothing."""
    answer = award_answer_parse(message)
    with transaction.atomic():
        hit = _award_hit_lock(answer, venue_id, message)
        known = SasAward.objects.filter(hit=hit).first()
        if known is None:
            known = _award_record(hit, answer)
        elif (known.status, known.paid_cents) != (answer.status, answer.paid):
            raise GatewayRefused("award_answered", answer.award)
    return {"type": "award_recorded", "award": hit.id, "status": known.status, "paid": known.paid_cents}


def _award_record(hit: Hit, answer: AwardAnswer) -> SasAward:
    now = timezone.now()
    paid = answer.status == SasAward.Status.PAID
    record = SasAward.objects.create(
        hit=hit,
        machine_id=hit.machine_id,
        status=answer.status,
        asked_cents=hit.amount_cents,
        paid_cents=answer.paid,
        difference_cents=answer.paid - hit.amount_cents if paid else 0,
        at=now,
    )
    if paid and hit.state in (Hit.State.HIT, Hit.State.VERIFIED):
        hit_machine_award_record(hit, answer.paid, now=now)
    elif paid:
        # Voided (or paid by hand) meanwhile: the machine has credited it all the same. Kept on record.
        logger.warning("hit %s is %s but its machine credited %s cents", hit.id, hit.state, answer.paid)
    return record


def hit_machine_award_record(hit: Hit, paid_cents: int, *, now: datetime) -> None:
    """A mystery award's machine credited ``paid_cents`` of it (LP 8A, the gateway's ``award_result``),
    the hit locked by the caller. All of it: the hit is paid by that machine. Less (0 included): the
    machine's part is recorded, the hit stays on the desk for the attendants to pay the rest
    (``Hit.attendant_cents``) and the floor is alerted. The level paid the whole award when it was won,
    so the machine's part and the attendants' add up to it: nothing is invented or lost."""
    if paid_cents > 0:
        hit.paid_by_machine_id, hit.machine_paid_cents = hit.machine_id, paid_cents
    fields = ["paid_by_machine", "machine_paid_cents"]
    if paid_cents >= hit.amount_cents:
        hit.state, hit.paid_at = Hit.State.PAID, now
        hit.save(update_fields=[*fields, "state", "paid_at"])
        return
    hit.save(update_fields=fields)
    short = hit.amount_cents - paid_cents
    detail = (
        f"Award {hit.pk} on level {hit.level_id}: the machine credited {paid_cents} of {hit.amount_cents} "
        f"cents; the attendants pay the remaining {short} cents from the hits desk."
    )
    logger.warning("machine %s: %s", hit.machine_id, detail)
    MachineAlert.objects.create(
        machine_id=hit.machine_id,
        kind=MachineAlert.Kind.AWARD_PAID_SHORT,
        seq=hit.play_seq or 0,
        at=now,
        detail=detail,
        payload={
            "hit": hit.pk,
            "award_cents": hit.amount_cents,
            "paid_cents": paid_cents,
            "short_cents": short,
        },
    )


def gateway_link_record(venue_id: int, *, up: bool, close_code: int | None = None) -> None:
    """The venue gateway's link in the significant-events register: up when its connection is accepted
    (key checked, claim held), down when that connection ends, with the websocket's close code."""
    code = Venue.objects.filter(pk=venue_id).values_list("code", flat=True).first() or str(venue_id)
    if up:
        kind, detail = SignificantEvent.Kind.LINK_UP, "Gateway connected: amounts and awards flow again."
    else:
        kind = SignificantEvent.Kind.LINK_DOWN
        detail = f"Gateway connection lost (close code {close_code})."
    significant_event_record(kind, venue=venue_id, subject=f"Gateway {code}", detail=detail)
