"""What the link's API, socket, reconciliation and admin tests share: a EUR pool (JUMBO7) fed by a
Swiss site (CHX, CHF at 0.935) and an Italian one (NOG, EUR), each with a key; batches as sites send them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import orjson
from django.test import Client
from django.utils import timezone

from jackpots.models import Level, Progressive
from jackpots.services import core
from jackpots.services.levels import level_create
from linkcentral.models import LinkAward, LinkAwardPart, LinkedPool, LinkEntry, LinkMember, LinkSite
from linkcentral.services.keys import site_key_issue
from tests.factories import ProgressiveFactory

ENTRIES_URL = "/api/v1/link/entries"
AWARDS_URL = "/api/v1/link/awards"
RESET_MC = 500_000_000  # EUR 5,000.00
RATE = "0.93500000"
# When the sites' rounds were played: fixed per test run, so the same seq makes the same entry.
PLAYED_FROM = timezone.now().astimezone(UTC) - timedelta(hours=1)


@dataclass
class Link:
    progressive: Progressive
    level: Level
    pool: LinkedPool
    chx: LinkSite
    nog: LinkSite
    chx_member: LinkMember
    nog_member: LinkMember
    chx_key: str
    nog_key: str


def link_ready() -> Link:
    progressive = ProgressiveFactory(name="Jumbo 7", kind=Progressive.Kind.WIDE_AREA, currency="EUR")
    level = level_create(
        progressive, name="Jumbo 7", position=1, params=core.Params(reset_mc=RESET_MC, rate=Decimal("0.1"))
    )
    pool = LinkedPool.objects.create(code="JUMBO7", level=level)
    chx = LinkSite.objects.create(code="CHX", name="Casinò Lugano", currency="CHF")
    nog = LinkSite.objects.create(code="NOG", name="Casinò Nogaredo", currency="EUR")
    chx_member = LinkMember.objects.create(pool=pool, site=chx)
    nog_member = LinkMember.objects.create(pool=pool, site=nog)
    return Link(
        progressive,
        level,
        pool,
        chx,
        nog,
        chx_member,
        nog_member,
        site_key_issue(chx)[1],
        site_key_issue(nog)[1],
    )


def instant(seconds_ago: float) -> str:
    """An RFC 3339 instant as a site writes it (UTC, milliseconds)."""
    return rfc3339(timezone.now().astimezone(UTC) - timedelta(seconds=seconds_ago))


def played(seq: int) -> str:
    return rfc3339(PLAYED_FROM + timedelta(seconds=seq))


def rfc3339(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


def contribution(
    seq: int, wagered: int = 1500, *, rate: str = RATE, currency: str = "CHF", **extra: Any
) -> dict:
    return {
        "seq": seq,
        "kind": "contribution",
        "round": f"CHX-T3:{8800 + seq}",
        "played_at": extra.pop("played_at", played(seq)),
        "currency": currency,
        "rate": rate,
        "wagered_cents": wagered,
        **extra,
    }


def seat_objects(seats: list[tuple[int, int]]) -> list[dict[str, int]]:
    """Each bet of a claim as the wire names it: its seat and its Jumbo 7 bet in the site's cents."""
    return [{"seat": seat, "bet_cents": bet_cents} for seat, bet_cents in seats]


def claim(
    seq: int, seats: list[tuple[int, int]], *, rate: str = RATE, currency: str = "CHF", **extra: Any
) -> dict:
    """A claim whose bets are ``seats``: (seat, bet in the site's cents) each."""
    return {
        "seq": seq,
        "kind": "claim",
        "round": f"CHX-T3:{8800 + seq}",
        "played_at": extra.pop("played_at", played(seq)),
        "currency": currency,
        "rate": rate,
        "bets": len(seats),
        "seats": seat_objects(seats),
        **extra,
    }


def batch(*entries: dict, through: str | None = None, pool: str = "JUMBO7") -> dict:
    return {"pool": pool, "through": through or instant(1), "entries": list(entries)}


def post(data: Any, key: str | None, *, raw: bytes | None = None) -> Any:
    headers = {"HTTP_AUTHORIZATION": f"Bearer {key}"} if key is not None else {}
    body = raw if raw is not None else orjson.dumps(data)
    return Client().post(ENTRIES_URL, body, content_type="application/json", **headers)


def awards_get(key: str, query: str) -> Any:
    return Client().get(f"{AWARDS_URL}?{query}", HTTP_AUTHORIZATION=f"Bearer {key}")


def parse_at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def claim_entry(
    link: Link, member: LinkMember, seq: int, seats: list[tuple[int, int]], rate: str = RATE
) -> LinkEntry:
    """A claim as the entries service keeps it (the awards tests do not need it to have come by the API)."""
    return LinkEntry.objects.create(
        member=member,
        seq=seq,
        kind=LinkEntry.Kind.CLAIM,
        round_ref=f"{member.site.code}-T1:{seq}",
        played_at=PLAYED_FROM + timedelta(seconds=seq),
        received_at=timezone.now(),
        currency=member.site.currency,
        rate=Decimal(rate),
        bets=len(seats),
        seats=seat_objects(seats),
        digest=f"d{member.pk}-{seq}",
        applied_at=timezone.now(),
        cycle=1,
    )


def award_make(link: Link, amount_mc: int, parts: list[tuple[LinkEntry, int, int, int]]) -> LinkAward:
    """An award of the pool with its parts: (claim entry, seat, part mc, part site cents) each."""
    award = LinkAward.objects.create(
        pool=link.pool,
        played_at=min(entry.played_at for entry, *_ in parts),
        decided_at=timezone.now(),
        amount_mc=amount_mc,
        cycle=1,
    )
    for number, (entry, seat, mc, cents) in enumerate(parts, start=1):
        LinkAwardPart.objects.create(
            award=award, entry=entry, number=number, seat=seat, amount_mc=mc, site_cents=cents
        )
    return award


def state(link: Link) -> tuple:
    """Everything a batch may change: the entries and the member's progress."""
    member = LinkMember.objects.get(pk=link.chx_member.pk)
    entries = list(LinkEntry.objects.order_by("member_id", "seq").values_list("member_id", "seq", "digest"))
    return (
        entries,
        member.acked_seq,
        member.through,
        member.heard_at,
        member.books_seq,
        member.books_wagered_cents,
    )


def posted(link: Link, data: Any, capture: Any, *, key: str | None = None) -> Any:
    with capture(execute=True):
        return post(data, link.chx_key if key is None else key)
