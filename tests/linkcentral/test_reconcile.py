"""The link's reconciliation (docs/wide-area.md "The books"): each site's totals as received, and each
pool's level against its ledger, the entries applied and the awards; ``manage.py link_reconcile``."""

from __future__ import annotations

import sys
import types
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone, translation

from jackpots.models import LedgerEntry, Level
from linkcentral.models import LinkEntry
from linkcentral.selectors import PoolBooks, SiteBooks, link_books
from linkcentral.services.entries import entries_receive
from tests.linkcentral.api_factories import RESET_MC, Link, award_make, batch, claim, contribution, link_ready

pytestmark = pytest.mark.django_db
SHARES_MC = 624_300  # 10 % of the 6,243 cents applied
AWARD_MC = 1_000_000


@pytest.fixture
def link(monkeypatch: pytest.MonkeyPatch) -> Link:
    """CHX sent two contributions and a claim, with its own books through the first (1,500 of its cents);
    NOG one contribution, without books; all applied but CHX's second; the ledger took the applied bets'
    shares in and one award out, as the apply service does."""
    task = types.SimpleNamespace(delay=lambda pool_id: None)
    monkeypatch.setitem(sys.modules, "linkcentral.tasks", types.SimpleNamespace(link_entries_apply_task=task))
    link = link_ready()
    now = timezone.now()
    chx_batch = batch(contribution(1, 1500), contribution(2, 2000), claim(3, [(2, 500), (5, 1000)]))
    entries_receive(link.chx, {**chx_batch, "books": {"seq": 1, "wagered_cents": 1500}}, now)
    entries_receive(link.nog, batch(contribution(1, 2500, rate="1", currency="EUR")), now)
    # Applied: 1604 (CHX 1) + 2500 (NOG 1) + the claim; CHX 2 (2139 cents) waits for the order of play.
    LinkEntry.objects.exclude(member=link.chx_member, seq=2).update(applied_at=now, cycle=1)
    applied_cents = 1604 + 2500
    ledger(
        link,
        LedgerEntry.Kind.CONTRIBUTION,
        wagered_cents=applied_cents,
        current_delta_mc=410_400,
        contributed_mc=410_400,
    )
    chx_claim = LinkEntry.objects.get(member=link.chx_member, seq=3)
    award_make(link, AWARD_MC, [(chx_claim, 2, 500_000, 467), (chx_claim, 5, 500_000, 467)])
    ledger(link, LedgerEntry.Kind.AWARD, current_delta_mc=-AWARD_MC, awarded_mc=AWARD_MC)
    Level.objects.filter(pk=link.level.pk).update(current_mc=RESET_MC + 410_400 - AWARD_MC, seq=3)
    return link


def ledger(link: Link, kind: str, **amounts: int) -> LedgerEntry:
    return LedgerEntry.objects.create(
        level=link.level, kind=kind, at=timezone.now(), cycle=1, level_seq=2, **amounts
    )


def test_the_books_of_each_site_and_of_the_pool(link: Link):
    (books,) = link_books()
    chx, nog = books.sites
    member = link.chx_member
    member.refresh_from_db()
    assert chx == SiteBooks(
        site_code="CHX", site_name="Casinò Lugano", currency="CHF", entries=3, contributions=2,
        wagered_cents=3500, wagered_pool_cents=1604 + 2139, applied_pool_cents=1604, claims=1,
        parts=2, parts_mc=1_000_000, parts_site_cents=934, last_seq=3, through=member.through,
        heard_at=member.heard_at, books_seq=1, books_wagered_cents=1500, link_wagered_through_cents=1500,
    )  # fmt: skip
    assert chx.books_difference_cents == 0
    assert (nog.books_seq, nog.books_wagered_cents, nog.link_wagered_through_cents) == (0, 0, 0)
    assert (nog.entries, nog.wagered_cents, nog.wagered_pool_cents, nog.applied_pool_cents, nog.parts) == (
        1, 2500, 2500, 2500, 0,
    )  # fmt: skip
    assert books == PoolBooks(
        code="JUMBO7", currency="EUR", sites=[chx, nog], level_mc=RESET_MC + 410_400 - AWARD_MC,
        shares_mc=410_400, other_mc=RESET_MC - AWARD_MC, ledger_wagered_cents=4104, applied_pool_cents=4104,
        awards=1, awards_mc=AWARD_MC, ledger_awarded_mc=AWARD_MC,
    )  # fmt: skip
    assert (books.level_difference_mc, books.wagered_difference_cents, books.awards_difference_mc) == (
        0,
        0,
        0,
    )
    assert books.balanced


def test_the_command_prints_the_books_in_the_active_language(link: Link):
    out = StringIO()
    with translation.override("en"):
        call_command("link_reconcile", stdout=out)
    text = out.getvalue()
    assert text.startswith("JUMBO7 (EUR)\n")
    for line in (
        "  Site: CHX (Casinò Lugano)",
        "  Bets (site's currency): CHF\u00a035.00",
        "  Bets (pool's currency): €\u00a037.43",
        "  Applied (pool's currency): €\u00a016.04",
        "  Parts (pool's currency): €\u00a010.00",
        "  Parts (site's currency): CHF\u00a09.34",
        "  Last entry: 3",
        "  Site's books: through entry: 1",
        "  Site's books: bets: CHF\u00a015.00",
        "  Link's books: bets through that entry: CHF\u00a015.00",
        "  Books: difference: CHF\u00a00.00",
        "  Level amount: €\u00a04,994.10",
        "  Level against its ledger: difference: 0 mc",
        "  Bets: difference: €\u00a00.00",
        "  Link awards: 1 · €\u00a010.00",
        "  OK",
    ):
        assert line + "\n" in text
    italian = StringIO()
    with translation.override("it"):
        call_command("link_reconcile", "--pool", "JUMBO7", stdout=italian)
    assert "  Importo del livello: €\u00a04.994,10\n" in italian.getvalue()
    assert "  Puntate (valuta del sito): CHF\u00a035,00\n" in italian.getvalue()


def test_a_pool_that_does_not_balance_is_told_and_the_command_fails(link: Link):
    Level.objects.filter(pk=link.level.pk).update(current_mc=RESET_MC + 410_400 - AWARD_MC + 500)
    LinkEntry.objects.filter(member=link.chx_member, seq=2).update(applied_at=timezone.now(), cycle=1)
    out = StringIO()
    with translation.override("en"), pytest.raises(CommandError, match=r"^Not balanced: JUMBO7\.$"):
        call_command("link_reconcile", stdout=out)
    assert "  Level against its ledger: difference: 500 mc\n" in out.getvalue()
    assert "  Bets: difference: €\u00a021.39\n" in out.getvalue()
    assert "  NOT BALANCED\n" in out.getvalue()


def test_a_sites_books_that_differ_from_the_links_are_told_and_the_pool_does_not_balance(link: Link):
    # CHX's books now say 3,400 cents through its entry 2; the link holds 1,500 + 2,000 for them.
    entries_receive(
        link.chx, {**batch(contribution(2, 2000)), "books": {"seq": 2, "wagered_cents": 3400}}, timezone.now()
    )
    (books,) = link_books()
    chx = books.sites[0]
    assert (chx.books_seq, chx.books_wagered_cents, chx.link_wagered_through_cents) == (2, 3400, 3500)
    assert (chx.books_difference_cents, books.balanced) == (100, False)
    out = StringIO()
    with translation.override("en"), pytest.raises(CommandError, match=r"^Not balanced: JUMBO7\.$"):
        call_command("link_reconcile", stdout=out)
    assert "  Books: difference: CHF\u00a01.00\n" in out.getvalue()


def test_an_unknown_pool_is_an_error():
    with pytest.raises(CommandError, match="No linked pool has the code 'NOPE'"):
        call_command("link_reconcile", "--pool", "NOPE", stdout=StringIO())
