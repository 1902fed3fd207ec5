"""Helpers of the link's apply tests: a pool (an engine level) with member sites, and entries as sent."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from jackpots.currency import convert_cents_back
from jackpots.models import Level, Progressive
from jackpots.services import core as engine
from jackpots.services.levels import level_create
from linkcentral.models import LinkedPool, LinkEntry, LinkMember, LinkSite

T0 = datetime(2026, 11, 27, 10, 0, tzinfo=UTC)
JUMBO7 = engine.Params(reset_mc=100_000_000, rate=Decimal("0.2"))  # EUR 1,000.00, 20% of the bets


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


@dataclass
class Linked:
    pool: LinkedPool
    level: Level
    members: dict[str, LinkMember]


def linked_pool(
    sites: dict[str, str] | None = None,
    *,
    code: str = "JUMBO7",
    settle_seconds: int = 120,
    params: engine.Params = JUMBO7,
) -> Linked:
    """A EUR pool (its level seeded at ``T0``) with a member per site {code: currency}."""
    sites = sites if sites is not None else {"NOG": "EUR", "CHX": "CHF"}
    progressive = Progressive.objects.create(name="Jumbo 7 link", currency="EUR")
    level = level_create(progressive, name="Jumbo 7", position=1, params=params, at=T0)
    pool = LinkedPool.objects.create(code=code, level=level, settle_seconds=settle_seconds)
    members = {
        code: LinkMember.objects.create(
            pool=pool, site=LinkSite.objects.create(code=code, name=f"Casino {code}", currency=currency)
        )
        for code, currency in sites.items()
    }
    return Linked(pool, level, members)


def through(member: LinkMember, seconds: float) -> None:
    """The site says it played through ``T0 + seconds``."""
    member.through = member.heard_at = at(seconds)
    member.save(update_fields=["through", "heard_at"])


def entry(
    member: LinkMember,
    seq: int,
    seconds: float,
    *,
    rate: str = "1",
    wagered: int = 0,
    seats: tuple[tuple[int, int], ...] | None = None,
) -> LinkEntry:
    """An entry as the site sent it: a contribution of ``wagered`` cents, or (``seats``: each bet's
    (seat, bet in the site's cents)) a claim, stored as the wire's seat objects."""
    kind = LinkEntry.Kind.CONTRIBUTION if seats is None else LinkEntry.Kind.CLAIM
    return LinkEntry.objects.create(
        member=member,
        seq=seq,
        kind=kind,
        round_ref=f"{member.site.code}-T1:{seq}",
        played_at=at(seconds),
        received_at=at(seconds),
        currency=member.site.currency,
        rate=Decimal(rate),
        wagered_cents=wagered,
        # As the link keeps it at receipt (``services.entries``): the bets in the pool's cents.
        wagered_pool_cents=convert_cents_back(wagered, Decimal(rate)),
        bets=len(seats or ()),
        seats=[{"seat": seat, "bet_cents": bet} for seat, bet in seats or ()],
        digest=f"{member.site.code}{seq}".ljust(64, "0"),
    )
