"""Reads of the link: what a site is sent (its awards, its pools' frames) and the reconciliation of the
link's books (docs/wide-area.md "The books")."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, F, Q, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from jackpots.models import LedgerEntry, Level
from linkcentral.errors import LinkRefused
from linkcentral.models import LinkAward, LinkAwardPart, LinkedPool, LinkEntry, LinkMember, LinkSite

AWARDS_PAGE = 100


# --- what a site is sent ---------------------------------------------------------------------------------


def _award_answer(award: LinkAward, parts: list[LinkAwardPart]) -> dict[str, Any]:
    return {
        "id": award.pk,
        "played_at": award.played_at.isoformat(),
        "decided_at": award.decided_at.isoformat(),
        "amount_mc": award.amount_mc,
        "parts": [
            {
                "number": part.number,
                "seq": part.entry.seq,
                "round": part.entry.round_ref,
                "seat": part.seat,
                "amount_mc": part.amount_mc,
                "site_cents": part.site_cents,
                "rate": str(part.entry.rate),
            }
            for part in parts
        ],
    }


def awards_for_site(site: LinkSite, pool_code: str, after: int, page: int = AWARDS_PAGE) -> dict[str, Any]:
    """The awards of the pool after the id ``after`` that have a part of ``site``'s, oldest first, each
    with the site's parts only (a page at most; ``more`` when there are more). A site that left the pool
    still gets the awards of its earlier claims."""
    member = LinkMember.objects.select_related("pool__level__progressive").filter(
        site=site, pool__code=pool_code
    ).first()  # fmt: skip
    if member is None:
        raise LinkRefused(403, "not_a_member", f"This site is not a member of the pool {pool_code}.")
    ids = list(
        LinkAward.objects.filter(pool_id=member.pool_id, pk__gt=after, parts__entry__member=member)
        .order_by("id")
        .values_list("id", flat=True)
        .distinct()[: page + 1]
    )
    shown = ids[:page]
    parts: dict[int, list[LinkAwardPart]] = defaultdict(list)
    for part in LinkAwardPart.objects.filter(award_id__in=shown, entry__member=member).select_related(
        "entry"
    ):
        parts[part.award_id].append(part)
    awards = LinkAward.objects.filter(pk__in=shown).order_by("id")
    return {
        "pool": member.pool.code,
        "currency": member.pool.level.progressive.currency,
        "site_currency": site.currency,
        "more": len(ids) > page,
        "awards": [_award_answer(award, parts[award.pk]) for award in awards],
    }


def site_pool_ids(site_id: int) -> list[int]:
    """The pools the site is an active member of (what its socket listens to)."""
    members = LinkMember.objects.filter(site_id=site_id, site__active=True, active=True)
    return sorted(members.values_list("pool_id", flat=True))


def pool_frames(
    *, pool_ids: list[int] | None = None, level_ids: list[int] | None = None
) -> list[dict[str, Any]]:
    """A ``pool`` frame for each pool given by id or by its level (one query for all)."""
    pools = LinkedPool.objects.select_related("level__progressive").order_by("id")
    if pool_ids is not None:
        pools = pools.filter(pk__in=pool_ids)
    if level_ids is not None:
        pools = pools.filter(level_id__in=level_ids)
    at = timezone.now().isoformat()
    return [
        {
            "type": "pool",
            "pool_id": pool.pk,
            "pool": pool.code,
            "amount_mc": pool.level.current_mc,
            "currency": pool.level.progressive.currency,
            "value_seq": pool.level.seq,
            "at": at,
        }
        for pool in pools
    ]


# --- the reconciliation ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SiteBooks:
    """One site's totals in one pool, as the link received them."""

    site_code: str
    site_name: str
    currency: str
    entries: int
    contributions: int
    wagered_cents: int  # the bets, site's cents
    wagered_pool_cents: int  # the same converted down at each entry's rate, pool's cents
    applied_pool_cents: int  # of those, what has gone into the pool
    claims: int
    parts: int
    parts_mc: int  # the site's award parts, pool's millicents
    parts_site_cents: int  # the same in the site's cents, at each claim's rate
    last_seq: int
    through: datetime | None
    heard_at: datetime | None
    books_seq: int  # the site's own books, as it last reported them: through this entry …
    books_wagered_cents: int  # … its contributions' bets, site's cents
    link_wagered_through_cents: int  # the link's books of the same entries

    @property
    def books_difference_cents(self) -> int:
        """The link's books of the site's entries against the site's own, site's cents (0: they agree)."""
        return self.link_wagered_through_cents - self.books_wagered_cents


@dataclass(frozen=True, slots=True)
class PoolBooks:
    """A pool's books: each site's, and the level against its ledger and the link's entries and awards."""

    code: str
    currency: str
    sites: list[SiteBooks]
    level_mc: int  # the level's current amount
    shares_mc: int  # Σ the contributions' shares the ledger put into the current amount
    other_mc: int  # Σ every other ledger change of the current amount (seeds, awards and resets, corrections)
    ledger_wagered_cents: int  # Σ bets the ledger's contributions were computed on, pool's cents
    applied_pool_cents: int  # Σ the applied entries' bets, pool's cents
    awards: int
    awards_mc: int  # Σ the link's awards
    ledger_awarded_mc: int  # Σ the ledger's awards out

    @property
    def level_difference_mc(self) -> int:
        return self.level_mc - (self.shares_mc + self.other_mc)

    @property
    def wagered_difference_cents(self) -> int:
        return self.applied_pool_cents - self.ledger_wagered_cents

    @property
    def awards_difference_mc(self) -> int:
        return self.awards_mc - self.ledger_awarded_mc

    @property
    def balanced(self) -> bool:
        differences = (self.level_difference_mc, self.wagered_difference_cents, self.awards_difference_mc)
        return differences == (0, 0, 0) and all(site.books_difference_cents == 0 for site in self.sites)


def _total(field: str, condition: Q | None = None) -> Coalesce:
    return Coalesce(Sum(field, filter=condition), 0)


def _entry_totals(pool_id: int) -> dict[int, dict[str, Any]]:
    contribution = Q(kind=LinkEntry.Kind.CONTRIBUTION)
    rows = (
        LinkEntry.objects.filter(member__pool_id=pool_id)
        .values("member_id")
        .annotate(
            entries=Count("id"),
            contributions=Count("id", filter=contribution),
            wagered=_total("wagered_cents", contribution),
            wagered_pool=_total("wagered_pool_cents", contribution),
            applied_pool=_total("wagered_pool_cents", contribution & Q(applied_at__isnull=False)),
            # The entries the site's own books last covered: the same sum, from the link's side.
            wagered_reported=_total("wagered_cents", contribution & Q(seq__lte=F("member__books_seq"))),
            claims=Count("id", filter=Q(kind=LinkEntry.Kind.CLAIM)),
        )
        .order_by()
    )
    return {
        row["member_id"]: {name: value for name, value in row.items() if name != "member_id"} for row in rows
    }


def _part_totals(pool_id: int) -> dict[int, dict[str, Any]]:
    rows = (
        LinkAwardPart.objects.filter(award__pool_id=pool_id)
        .values("entry__member_id")
        .annotate(parts=Count("id"), mc=_total("amount_mc"), cents=_total("site_cents"))
        .order_by()
    )
    return {
        row["entry__member_id"]: {name: value for name, value in row.items() if name != "entry__member_id"}
        for row in rows
    }


def _site_books(member: LinkMember, entries: dict[str, Any], parts: dict[str, Any]) -> SiteBooks:
    return SiteBooks(
        site_code=member.site.code,
        site_name=member.site.name,
        currency=member.site.currency,
        entries=entries.get("entries", 0),
        contributions=entries.get("contributions", 0),
        wagered_cents=entries.get("wagered", 0),
        wagered_pool_cents=entries.get("wagered_pool", 0),
        applied_pool_cents=entries.get("applied_pool", 0),
        claims=entries.get("claims", 0),
        parts=parts.get("parts", 0),
        parts_mc=parts.get("mc", 0),
        parts_site_cents=parts.get("cents", 0),
        last_seq=member.acked_seq,
        through=member.through,
        heard_at=member.heard_at,
        books_seq=member.books_seq,
        books_wagered_cents=member.books_wagered_cents,
        link_wagered_through_cents=entries.get("wagered_reported", 0),
    )


def _ledger_totals(level: Level) -> dict[str, int]:
    contribution = Q(kind=LedgerEntry.Kind.CONTRIBUTION)
    return LedgerEntry.objects.filter(level=level).aggregate(
        shares=_total("current_delta_mc", contribution),
        other=_total("current_delta_mc", ~contribution),
        wagered=_total("wagered_cents", contribution),
        awarded=_total("awarded_mc"),
    )


def pool_books(pool: LinkedPool) -> PoolBooks:
    """A pool's reconciliation (a handful of queries, whatever the number of sites and entries)."""
    entries, parts = _entry_totals(pool.pk), _part_totals(pool.pk)
    members = LinkMember.objects.filter(pool=pool).select_related("site").order_by("site__code")
    sites = [_site_books(m, entries.get(m.pk, {}), parts.get(m.pk, {})) for m in members]
    level = pool.level
    ledger = _ledger_totals(level)
    awards = LinkAward.objects.filter(pool=pool).aggregate(count=Count("id"), mc=_total("amount_mc"))
    return PoolBooks(
        code=pool.code,
        currency=level.progressive.currency,
        sites=sites,
        level_mc=level.current_mc,
        shares_mc=ledger["shares"],
        other_mc=ledger["other"],
        ledger_wagered_cents=ledger["wagered"],
        applied_pool_cents=sum(site.applied_pool_cents for site in sites),
        awards=awards["count"],
        awards_mc=awards["mc"],
        ledger_awarded_mc=ledger["awarded"],
    )


def link_books(pool_code: str | None = None) -> list[PoolBooks]:
    """Every pool's reconciliation (or the one named), in code order."""
    pools = LinkedPool.objects.select_related("level__progressive").order_by("code")
    if pool_code is not None:
        pools = pools.filter(code=pool_code)
    return [pool_books(pool) for pool in pools]
