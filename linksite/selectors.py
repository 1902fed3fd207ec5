"""Reads of the site's side of a wide-area progressive: the pool as heard (what the signs show) and the
outbox's totals (what the link's reconciliation compares with its own books of this site)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import BigIntegerField, Count, Min, Q, Sum
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast
from django.utils import timezone

from common.money import MC_PER_CENT
from jackpots.currency import convert_cents, rate_find
from linksite.models import LinkMembership, LinkPoolMirror, OutboxEntry
from tables.models import Table


def site_currency(membership: LinkMembership) -> str:
    """The currency this site bets and pays the pool in: its tables' venue's (the progressive's own when
    it has no table yet)."""
    table = (
        Table.objects.filter(progressive_id=membership.progressive_id)
        .select_related("venue")
        .order_by("-active", "id")
        .first()
    )
    return table.venue.currency if table is not None else membership.progressive.currency


@dataclass(frozen=True)
class PoolHeard:
    """The pool in the site's cents at the rate in force (None: never heard); ``link_down``: nothing
    heard for LINK_SILENCE_SECONDS (or ever)."""

    amount_cents: int | None
    currency: str
    heard_at: datetime | None
    link_down: bool


def pool_heard(membership: LinkMembership, now: datetime, currency: str | None = None) -> PoolHeard:
    """``currency``: the one shown in (a sign's venue's); by default the site's (``site_currency``)."""
    silence = timedelta(seconds=float(settings.LINK_SILENCE_SECONDS))
    currency = currency or site_currency(membership)
    mirror = LinkPoolMirror.objects.filter(membership=membership).first()
    if mirror is None:
        return PoolHeard(None, currency, None, True)
    rate = rate_find(mirror.currency, currency, now).rate
    # Down to the cent on the exact amount (the product's one rounding rule).
    amount = convert_cents(mirror.amount_mc, rate) // MC_PER_CENT
    return PoolHeard(amount, currency, mirror.heard_at, now - mirror.heard_at > silence)


@dataclass(frozen=True)
class OutboxTotals:
    """One membership's outbox: what it owes the link and how much of it the link has acknowledged.
    ``wagered_cents``: the contributions' bets in the site's currency; ``claims``: the claim entries."""

    membership_id: int
    pool_code: str
    entries: int
    contributions: int
    claims: int
    wagered_cents: int
    unacked: int
    oldest_unacked_age_seconds: float | None
    acked_seq: int
    last_seq: int


def outbox_totals(now: datetime) -> list[OutboxTotals]:
    wagered = Cast(KeyTextTransform("wagered_cents", "body"), BigIntegerField())
    unacked = Q(acked_at__isnull=True)
    rows = (
        OutboxEntry.objects.order_by()
        .values("membership_id")
        .annotate(
            entries=Count("id"),
            contributions=Count("id", filter=Q(kind=OutboxEntry.Kind.CONTRIBUTION)),
            claims=Count("id", filter=Q(kind=OutboxEntry.Kind.CLAIM)),
            wagered=Sum(wagered, filter=Q(kind=OutboxEntry.Kind.CONTRIBUTION), default=0),
            unacked=Count("id", filter=unacked),
            oldest=Min("created_at", filter=unacked),
        )
    )
    by_membership = {row["membership_id"]: row for row in rows}
    totals = []
    for membership in LinkMembership.objects.order_by("id"):
        row: dict[str, Any] = dict(by_membership.get(membership.pk) or {})
        oldest = row.get("oldest")
        totals.append(
            OutboxTotals(
                membership_id=membership.pk,
                pool_code=membership.pool_code,
                entries=row.get("entries", 0),
                contributions=row.get("contributions", 0),
                claims=row.get("claims", 0),
                wagered_cents=row.get("wagered", 0),
                unacked=row.get("unacked", 0),
                oldest_unacked_age_seconds=(now - oldest).total_seconds() if oldest else None,
                acked_seq=membership.acked_seq,
                last_seq=membership.next_seq - 1,
            )
        )
    return totals


def outbox_unacked(membership_id: int, limit: int) -> list[OutboxEntry]:
    """The oldest entries the link has not acknowledged, in seq order."""
    rows = OutboxEntry.objects.filter(membership_id=membership_id, acked_at__isnull=True).order_by("seq")
    return list(rows[:limit])


def outbox_left_first(membership_id: int, sent: list[OutboxEntry]) -> datetime | None:
    """The earliest time of play among the unacknowledged entries after ``sent`` (a batch cut at its
    size): the link must not hear "played through" past a round it has yet to receive."""
    after = sent[-1].seq if sent else 0
    left = OutboxEntry.objects.filter(membership_id=membership_id, acked_at__isnull=True, seq__gt=after)
    first: datetime | None = left.aggregate(first=Min("played_at"))["first"]
    return first


def levels_shown_elsewhere(level_ids: list[int]) -> dict[int, tuple[int, int]]:
    """{level id: (amount_mc, value_seq)} as heard from the link, for the given levels that are a linked
    progressive's (its pay table's level): what the signs and the API show of a wide-area pool is the
    link's pool, while the level's own row stays this site's books of its own play."""
    rows = (
        LinkPoolMirror.objects.filter(
            membership__active=True, membership__progressive__pay_table__level_id__in=level_ids
        )
        .order_by()
        .values_list("membership__progressive__pay_table__level_id", "amount_mc", "value_seq")
    )
    return {level_id: (amount_mc, value_seq) for level_id, amount_mc, value_seq in rows}


def progressives_down(progressive_ids: list[int], now: datetime | None = None) -> set[int]:
    """The given progressives played as a site whose link has been silent for LINK_SILENCE_SECONDS (or
    never heard)."""
    now = now or timezone.now()
    silence = timedelta(seconds=float(settings.LINK_SILENCE_SECONDS))
    members = LinkMembership.objects.filter(active=True, progressive_id__in=progressive_ids)
    heard = Q(mirror__heard_at__gte=now - silence)
    return set(members.exclude(heard).values_list("progressive_id", flat=True))


def progressives_pending(progressive_ids: list[int]) -> set[int]:
    """The given progressives played as a site with a claim whose award the link has not sent back yet
    (sent or still in the outbox): their jackpot is pending."""
    claims = OutboxEntry.objects.filter(
        kind=OutboxEntry.Kind.CLAIM,
        awarded_at__isnull=True,
        membership__active=True,
        membership__progressive_id__in=progressive_ids,
    )
    return set(claims.order_by().values_list("membership__progressive_id", flat=True).distinct())
