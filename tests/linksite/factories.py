"""Helpers of the site's wide-area tests."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

from floor.models import Venue
from jackpots.models import ExchangeRate
from linksite.models import LinkMembership, OutboxEntry
from tables.models import Table
from tables.services import table_key_issue
from tests.tables.factories import T0, Tables, tables_ready

LINK_URL = "https://link.example.test"
SITE_KEY = "site-key-of-lugano"
RATE = Decimal("0.93710000")
# A-2-4-6-7 of hearts on the board: 3H 5H make the 7-card straight flush A to 7, KC KD a flush.
COMMUNITY = "AH 2H 4H 6H 7H"


def lugano(t: Tables) -> tuple[Table, str]:
    """A Jumbo 7 table at a Swiss venue on the seeded Jumbo 7 progressive, EUR 1 = CHF 0.9371; its key."""
    venue = Venue.objects.create(code="LUG", name="Casinò Lugano", currency="CHF")
    jumbo = t.table("VEN-CHE-1").progressive
    table = Table.objects.create(
        venue=venue, code="LUG-CHE-1", game="casino_holdem", progressive=jumbo, min_jackpot_bet_cents=100
    )
    ExchangeRate.objects.create(base="EUR", quote="CHF", rate=RATE, valid_from=T0.replace(year=2020))
    return table, table_key_issue(table)[1]


def linked_site(active: bool = True) -> tuple[Tables, Table, str, LinkMembership]:
    """The seeded tables, Lugano's table, and the Jumbo 7 progressive's membership of the link's pool."""
    t = tables_ready()
    table, key = lugano(t)
    membership = LinkMembership.objects.create(
        progressive=table.progressive, link_url=LINK_URL, pool_code="JUMBO7", site_key=SITE_KEY, active=active
    )
    return t, table, key, membership


def entry_add(membership: LinkMembership, seq: int, played_at: datetime, wagered: int = 1_500) -> OutboxEntry:
    """An outbox entry as the round service writes it (for the forwarder's tests)."""
    body = {
        "seq": seq,
        "kind": "contribution",
        "round": f"LUG-CHE-1:R{seq}",
        "played_at": played_at.isoformat().replace("+00:00", "Z"),
        "currency": "CHF",
        "rate": "0.93710000",
        "wagered_cents": wagered,
    }
    total = LinkMembership.objects.get(pk=membership.pk).wagered_total_cents + wagered
    entry = OutboxEntry.objects.create(
        membership=membership,
        seq=seq,
        kind="contribution",
        round_ref=body["round"],
        played_at=played_at,
        body=body,
        wagered_through_cents=total,
    )
    LinkMembership.objects.filter(pk=membership.pk).update(next_seq=seq + 1, wagered_total_cents=total)
    return entry


def entries_add(membership: LinkMembership, count: int, start: int = 1) -> list[OutboxEntry]:
    return [entry_add(membership, seq, T0 + timedelta(seconds=seq)) for seq in range(start, start + count)]
