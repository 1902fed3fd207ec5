"""Verifying and paying a hit: two different people verify at or above the venue's threshold (Nevada
MICS), and the floor pays a verified hit once, recording the winner at or above the identification
threshold. Every step records who and when (rule 8)."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from floor.models import Venue
from jackpots import hooks
from jackpots.hooks import any_says, first_answer, providers
from jackpots.models import Hit
from jackpots.services.errors import EngineError
from jackpots.services.hit_numbers import hit_label
from jackpots.services.winners import Winner, winner_record


def _threshold_cents(hit: Hit) -> int:
    """The two-person threshold of the venue where the hit happened: the machine's, or for a machine-less
    hit what the app that recorded it answers (tables: the lowest of its tables' venues; a shared
    percentage prize is verified part by part, each at its own venue's threshold)."""
    if hit.machine is not None:
        return hit.machine.room.venue.handpay_threshold_cents
    lowest = first_answer(providers.hit_threshold_cents, hit)
    return lowest if lowest is not None else settings.HANDPAY_THRESHOLD_CENTS


def hit_lock(hit: Hit) -> Hit:
    return Hit.objects.select_for_update(of=("self",)).select_related("machine__room__venue").get(pk=hit.pk)


def hit_verify(hit: Hit, user: User) -> Hit:
    """An attendant verifies. At or above the venue's threshold two different people must (Nevada MICS):
    the first is ``verified_by``, the second ``second_verified_by``; only then is the hit verified."""
    with transaction.atomic():
        hit = hit_lock(hit)
        if any_says(providers.hit_paid_in_parts, hit):
            raise EngineError(
                "pay_the_parts",
                _("%(hit)s is a shared prize: verify each winner's part on its own row.")
                % {"hit": hit_label(hit)},
            )
        if hit.state != Hit.State.HIT:
            raise EngineError(
                "hit_not_open",
                _("Hit %(hit)s is %(state)s; only an open hit can be verified.")
                % {"hit": hit_label(hit), "state": hit.get_state_display().lower()},
            )
        verification_record(hit, user, two_people=hit.amount_cents >= _threshold_cents(hit))
    return hit


def verification_record(record: Hit, user: User, *, two_people: bool) -> None:
    """One person's verification of a locked hit or prize part (their fields and "verified" state are the
    same): the first is ``verified_by``, at or above the threshold a different second person
    ``second_verified_by``; only then is it verified."""
    now = timezone.now()
    if record.verified_by_id is None:
        record.verified_by, record.verified_at = user, now
        if not two_people:
            record.state = Hit.State.VERIFIED
    elif record.verified_by_id == user.pk:
        raise EngineError(
            "second_verifier_required",
            _("This hit is at or above the two-person threshold: a different person must verify it too."),
        )
    else:
        record.second_verified_by, record.second_verified_at = user, now
        record.state = Hit.State.VERIFIED
    record.save(
        update_fields=["verified_by", "verified_at", "second_verified_by", "second_verified_at", "state"]
    )


def paid_already(label: str, by: str, at: datetime) -> EngineError:
    """The refusal of a second payment (e.g. the loser of two pays at once): who paid it and when."""
    return EngineError(
        "already_paid",
        _("%(hit)s was paid by %(by)s at %(time)s.")
        % {"hit": label, "by": by, "time": formats.time_format(timezone.localtime(at), "H:i")},
    )


def hit_payer(hit: Hit) -> str:
    """Who paid a paid hit, as people read it."""
    if hit.paid_by_machine is not None:
        return _("the machine %(machine)s") % {"machine": hit.paid_by_machine.asset_number}
    user = hit.paid_by
    if user is not None:
        return user.get_full_name() or user.get_username()
    return first_answer(providers.hit_payer, hit) or "?"


def hit_venue(hit: Hit) -> Venue | None:
    if hit.machine is not None:
        return hit.machine.room.venue
    venue: Venue | None = first_answer(providers.hit_venue, hit)
    return venue


def hit_pay(hit: Hit, user: User, winner: Winner | None = None) -> Hit:
    """The floor pays a verified hit, once: a second pay (two at once included: the hit's row is locked)
    is refused naming who paid it and when. At or above the venue's identification threshold the
    winner's name and identity document are required and recorded with the hit."""
    with transaction.atomic():
        hit = hit_lock(hit)
        if hit.state == Hit.State.PAID:
            assert hit.paid_at is not None  # a payment records when it was made
            raise paid_already(hit_label(hit), hit_payer(hit), hit.paid_at)
        if any_says(providers.hit_paid_in_parts, hit):
            raise EngineError(
                "pay_the_parts",
                _("%(hit)s is a shared prize: pay each winner's part on its own row.")
                % {"hit": hit_label(hit)},
            )
        if hit.state != Hit.State.VERIFIED:
            raise EngineError(
                "hit_not_verified",
                _("Hit %(hit)s is %(state)s; it must be verified before paying.")
                % {"hit": hit_label(hit), "state": hit.get_state_display().lower()},
            )
        venue = hit_venue(hit)
        fields = winner_record(
            hit,
            label=hit_label(hit),
            cents=hit.payout_cents,
            currency=venue.currency if venue is not None else "EUR",
            venue=venue,
            winner=winner,
        )
        hit.state, hit.paid_by, hit.paid_at = Hit.State.PAID, user, timezone.now()
        hit.save(update_fields=["state", "paid_by", "paid_at", *fields])
        hooks.hit_paid_on_commit(hit.pk)
    return hit
