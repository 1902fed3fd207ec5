"""A shared table prize paid part by part: one ``PrizePart`` per winning seat, each verified, paid and voided
on its own at the venue of its table, in that venue's currency.

Who pays a part is decided by its own venue's two-person threshold (``floor.Venue.handpay_threshold_cents``,
in the venue's currency ``floor.Venue.currency``), again every time the prize is divided (a winner joins,
a round is voided): under it the table pays it (its table and the key that posted its round), at or above
it the part waits on the hits desk for two people, then the floor pays it. A part already paid is never
moved or paid again. The prize's engine Hit is paid when every part still standing is."""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from jackpots.currency import convert_cents
from jackpots.models import Hit, Level
from jackpots.services.errors import EngineError
from jackpots.services.hit_numbers import hit_label
from jackpots.services.hit_payment import paid_already, verification_record
from jackpots.services.winners import Winner, winner_record
from tables.models import HitTablePayment, PrizePart, PrizeShare, TableDeclaration, TableKey, TableSeat
from tables.services.declarations import declaration_share_paid, share_declared

LIVE = [PrizePart.State.OPEN, PrizePart.State.VERIFIED, PrizePart.State.PAID]


def part_label(part: PrizePart) -> str:
    """``NOG-2026-00012, VEN-CSP-1 round r-7 seat 3``: the prize's hit number and where the part was won."""
    seat = part.seat
    return _("%(hit)s, %(table)s round %(round)s seat %(seat)s") % {
        "hit": hit_label(part.share.hit),
        "table": seat.round.table.code,
        "round": seat.round.round_id,
        "seat": seat.seat,
    }


def part_create(seat: TableSeat, key: TableKey | None) -> PrizePart:
    """A winning seat's part (its amount and payer are set by ``part_decide``)."""
    return PrizePart.objects.create(share=seat.share, seat=seat, key=key, currency=seat.round.currency)


def part_decide(part: PrizePart, seat: TableSeat, rate: Decimal) -> None:
    """The part's amount in its venue's currency, and who pays it: the table under the venue's threshold,
    else the floor. A part already paid keeps its payer."""
    part.amount_cents = convert_cents(seat.share_cents, Decimal(rate))
    fields = ["amount_cents"]
    table = seat.round.table
    unpaid = part.state in (PrizePart.State.OPEN, PrizePart.State.VERIFIED)
    if unpaid and part.amount_cents < table.venue.handpay_threshold_cents:
        part.state, part.paid_at = PrizePart.State.PAID, timezone.now()
        part.paid_by_table, part.paid_by_key = table, part.key
        fields += ["state", "paid_at", "paid_by_table", "paid_by_key"]
    part.save(update_fields=fields)


def parts_void(parts: list[PrizePart]) -> None:
    """Parts whose round or prize is void: nothing is owed on them (a part already paid by a person never
    gets here: its prize is refused a void, ``share_floor_paid_refuse``)."""
    for part in parts:
        if part.state != PrizePart.State.VOIDED:
            part.state, part.amount_cents = PrizePart.State.VOIDED, 0
            part.save(update_fields=["state", "amount_cents"])


def share_hit_settle(share: PrizeShare) -> None:
    """The prize's engine Hit follows its parts: paid once every part still standing is paid (at the table
    only: the table is its payer, as before parts), open while one is not."""
    hit = Hit.objects.select_for_update(of=("self",)).get(pk=share.hit_id)
    if hit.state == Hit.State.VOIDED:
        return
    parts = list(share.prize_parts.filter(state__in=LIVE))
    table_paid = None
    if parts and all(p.state == PrizePart.State.PAID for p in parts):
        at_table = [p for p in parts if p.paid_by_table_id is not None]
        hit.state, hit.paid_at = Hit.State.PAID, max(p.paid_at for p in parts)
        table_paid = at_table[0] if len(at_table) == len(parts) else None
    else:
        hit.state, hit.paid_at = Hit.State.HIT, None
    hit.save(update_fields=["state", "paid_at"])
    # The table is the hit's payer only when it paid every part (with the key of the first part's round).
    if table_paid is None:
        HitTablePayment.objects.filter(hit=hit).delete()
    else:
        HitTablePayment.objects.update_or_create(
            hit=hit, defaults={"table_id": table_paid.paid_by_table_id, "key_id": table_paid.paid_by_key_id}
        )


def share_floor_paid_refuse(share: PrizeShare) -> None:
    """A prize a person has paid a part of is never divided again nor voided: that money is out."""
    paid = share.prize_parts.filter(state=PrizePart.State.PAID, paid_by__isnull=False).first()
    if paid is not None:
        raise EngineError(
            "hit_not_voidable",
            _("%(part)s was paid by the floor: its prize can no longer be voided or divided again.")
            % {"part": part_label(paid)},
        )


def _part_lock(part: PrizePart) -> PrizePart:
    """The part's row locked, then read with its relations: read in the locking statement, the payer of a
    part another transaction paid while this one waited came back empty (PostgreSQL re-checks the locked
    row, not the rows joined to it)."""
    PrizePart.objects.select_for_update().filter(pk=part.pk).values_list("pk").get()
    return PrizePart.objects.select_related(
        "share__hit", "seat__round__table__venue", "paid_by", "paid_by_table"
    ).get(pk=part.pk)


def _part_open_check(part: PrizePart, doing: str) -> None:
    if part.state == PrizePart.State.PAID:
        payer = part.paid_by_table.code if part.paid_by_table_id else _person(part.paid_by)
        raise paid_already(part_label(part), payer, part.paid_at)
    if part.state == PrizePart.State.VOIDED:
        raise EngineError(
            "part_voided",
            _("%(part)s is void: it cannot be %(doing)s.") % {"part": part_label(part), "doing": doing},
        )


def _person(user) -> str:
    return user.get_full_name() or user.get_username()


def part_verify(part: PrizePart, user) -> PrizePart:
    """At or above its venue's threshold two different people verify a part (Nevada MICS)."""
    with transaction.atomic():
        part = _part_lock(part)
        _part_open_check(part, _("verified"))
        if part.state == PrizePart.State.VERIFIED:
            raise EngineError("hit_not_open", _("%(part)s is already verified.") % {"part": part_label(part)})
        two_people = part.amount_cents >= part.seat.round.table.venue.handpay_threshold_cents
        verification_record(part, user, two_people=two_people)
    return part


def part_pay(part: PrizePart, user, winner: Winner | None = None) -> PrizePart:
    """The floor pays a verified part, once (its row is locked: of two pays at once the second is refused
    naming who paid and when), after its prize's window closed (until then a later winner may still
    divide it) or while its declaration is pending (paying ends the wait: the division is fixed and, once
    every part is paid, the declaration is released), with the winner's identification at or above the
    venue's threshold."""
    with transaction.atomic():
        declared = TableDeclaration.objects.filter(
            share_id=part.share_id, state=TableDeclaration.State.PENDING
        ).values_list("level_id", flat=True)
        for level_id in declared:  # the level first, as a round takes it: no round divides it meanwhile
            Level.objects.select_for_update().filter(pk=level_id).values_list("pk").get()
        part = _part_lock(part)
        _part_open_check(part, _("paid"))
        label = part_label(part)
        if part.state != PrizePart.State.VERIFIED:
            raise EngineError(
                "hit_not_verified", _("%(part)s must be verified before paying.") % {"part": label}
            )
        now = timezone.now()
        if now <= part.share.closes_at and not share_declared(part.share):
            raise EngineError(
                "part_provisional",
                _("%(part)s may still be divided with a later winner until %(time)s: pay it after.")
                % {"part": label, "time": timezone.localtime(part.share.closes_at).strftime("%H:%M:%S")},
            )
        venue = part.seat.round.table.venue
        fields = winner_record(
            part, label=label, cents=part.amount_cents, currency=part.currency, venue=venue, winner=winner
        )
        part.state, part.paid_by, part.paid_at = PrizePart.State.PAID, user, now
        part.save(update_fields=["state", "paid_by", "paid_at", *fields])
        share_hit_settle(part.share)
        declaration_share_paid(part.share, user, now)
    return part


def part_void(part: PrizePart, user, reason: str) -> PrizePart:
    """A part is voided with its round (the hand is declared void): the round's void divides the prize again
    among the other winners, or voids it when none is left. A part at or above its venue's two-person
    threshold needs two different people: the first asks (with the reason), the second confirms."""
    from tables.services.voids import round_void  # voids divides through rounds, which imports us

    if not reason or not reason.strip():
        raise EngineError("reason_required", _("A void needs a reason."))
    with transaction.atomic():
        part = _part_lock(part)
        if part.paid_by_table_id is None:  # a part its table paid is voided with its round, as before
            _part_open_check(part, _("voided"))
        round_ = part.seat.round
        if part.amount_cents >= round_.table.venue.handpay_threshold_cents:
            if part.void_requested_by_id is None:
                part.void_requested_by, part.void_requested_at = user, timezone.now()
                part.void_reason = reason.strip()
                part.save(update_fields=["void_requested_by", "void_requested_at", "void_reason"])
                return part
            if part.void_requested_by_id == user.pk:
                raise EngineError(
                    "second_voider_required",
                    _("At or above the two-person threshold another person must confirm this void."),
                )
            reason = f"{part.void_reason} / {reason.strip()}"
    round_void(round_.table, round_.round_id, reason=reason, user=user)
    part.refresh_from_db()
    return part
