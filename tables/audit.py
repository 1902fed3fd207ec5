"""The audit's checks of the table prizes of a level (``manage.py jackpots_audit`` runs them through
``jackpots.hooks.providers.level_audits``): a table prize whose hit is voided is voided everywhere (its
record, every seat's part or fixed prize), and the parts of a standing one among the rounds still recorded
add up to it."""

from __future__ import annotations

from collections.abc import Callable

from django.db.models import Q, Sum

from jackpots.models import Hit, Level
from tables.models import PrizeShare, TableRound, TableSeat


def table_prizes_audit(level: Level, bad: Callable[[str], None]) -> None:
    standing = (
        PrizeShare.objects.filter(level=level, hit__state=Hit.State.VOIDED)
        .filter(Q(voided=False) | Q(seats__share_cents__gt=0))
        .distinct()
        .order_by("id")
    )
    for share in standing.select_related("hit"):
        voided = share.hit.ref or share.hit_id
        bad(f"shared prize {share.id}: its hit {voided} is voided, the prize or a seat's part stands")
    fixed = TableSeat.objects.filter(round__level=level, fixed_hit__state=Hit.State.VOIDED, fixed_cents__gt=0)
    for seat in fixed.select_related("fixed_hit").order_by("id"):
        voided = seat.fixed_hit.ref or seat.fixed_hit_id
        bad(f"seat {seat.id}: its fixed prize's hit {voided} is voided, the prize stands")
    recorded = Q(seats__round__state=TableRound.State.RECORDED)
    live = PrizeShare.objects.filter(level=level, voided=False).exclude(hit__state=Hit.State.VOIDED)
    for share in live.annotate(parts=Sum("seats__share_cents", filter=recorded)).order_by("id"):
        if (share.parts or 0) != share.prize_cents:
            bad(f"shared prize {share.id}: its parts add up to {share.parts} cents, not {share.prize_cents}")
