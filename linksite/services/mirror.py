"""The link's pool and awards as this site heard them.

The pool: only a newer ``value_seq`` replaces what is kept (frames can cross: a snapshot taken before a
change may arrive after it). Any frame of the pool, even an older one, says the link was heard. The
awards: each is kept once, by the link's id (hearing it again is a no-op).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction

from jackpots.hooks import levels_changed_on_commit
from linksite.models import LinkMembership, LinkPoolMirror, SiteAward
from linksite.services.award_parts import award_parts_record, claims_awarded
from tables.models import PayTable


class FrameInvalid(ValueError):
    """A frame or award without the fields the wire contract gives it; nothing is written."""


@dataclass(frozen=True)
class PoolFrame:
    amount_mc: int
    currency: str
    value_seq: int


def _integer(data: dict[str, Any], name: str) -> int:
    value = data.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise FrameInvalid(f"{name} must be a whole number of at least 0, not {value!r}.")
    return value


def pool_frame_parse(data: dict[str, Any]) -> PoolFrame:
    """A ``pool`` frame (or an ack's ``pool``): its amount, currency and value sequence."""
    currency = data.get("currency")
    if not isinstance(currency, str) or len(currency) != 3:
        raise FrameInvalid(f"currency must be a three-letter code, not {currency!r}.")
    return PoolFrame(_integer(data, "amount_mc"), currency, _integer(data, "value_seq"))


def pool_mirror_update(membership: LinkMembership, frame: PoolFrame, heard_at: datetime) -> bool:
    """Keeps the frame when its ``value_seq`` is newer than the one kept (True), else only the time the
    link was heard. Under the mirror's row lock, so two writers (the listener, the forwarder's acks)
    never put an older value over a newer one."""
    with transaction.atomic():
        mirror = LinkPoolMirror.objects.select_for_update().filter(membership=membership).first()
        if mirror is None:
            try:
                with transaction.atomic():
                    LinkPoolMirror.objects.create(
                        membership=membership,
                        amount_mc=frame.amount_mc,
                        currency=frame.currency,
                        value_seq=frame.value_seq,
                        heard_at=heard_at,
                    )
                _shown_changed(membership)
                return True
            except IntegrityError:  # the other writer created it first: compare with it
                mirror = LinkPoolMirror.objects.select_for_update().get(membership=membership)
        newer = frame.value_seq > mirror.value_seq
        if newer:
            mirror.amount_mc, mirror.currency = frame.amount_mc, frame.currency
            mirror.value_seq = frame.value_seq
            _shown_changed(membership)
        mirror.heard_at = max(mirror.heard_at, heard_at)
        mirror.save()
        return newer


def _shown_changed(membership: LinkMembership) -> None:
    """The signs show the link's pool on the progressive's level: they hear it changed (after commit)."""
    levels = PayTable.objects.filter(progressive_id=membership.progressive_id)
    levels_changed_on_commit(list(levels.values_list("level_id", flat=True)))


def link_heard(membership: LinkMembership, heard_at: datetime) -> None:
    """A heartbeat: the link is there (the pool's value is unchanged)."""
    LinkPoolMirror.objects.filter(membership=membership, heard_at__lt=heard_at).update(heard_at=heard_at)


def awards_store(membership: LinkMembership, awards: list[Any]) -> list[SiteAward]:
    """The awards the link sent, each kept once by its id; answers those new here. A new award's parts
    go to the hits desk in the transaction that keeps it (``award_parts``): kept once, recorded once."""
    new: list[SiteAward] = []
    for award in awards:
        if not isinstance(award, dict):
            raise FrameInvalid(f"an award must be an object, not {award!r}.")
        award_id = _integer(award, "id")
        with transaction.atomic():
            row, created = SiteAward.objects.get_or_create(
                membership=membership, link_award_id=award_id, defaults={"body": award}
            )
            if created:
                award_parts_record(row)
                claims_awarded(membership, award)
        if created:
            new.append(row)
    return new
