"""The demo's wide-area Jumbo 7: the link's pool and its sites seeded once, a site joined to it."""

from __future__ import annotations

from decimal import Decimal

import pytest

from common.credentials import credential_find
from demo.services.wide_area import link_seed, site_join
from floor.models import Venue
from jackpots.models import ExchangeRate
from linkcentral.models import LinkedPool, LinkMember, LinkSiteKey
from linksite.models import LinkMembership
from tables.seed import tables_seed

pytestmark = pytest.mark.django_db


def test_the_link_seeds_its_pool_and_sites_once_and_issues_each_key_once() -> None:
    level, keys = link_seed([("VEN", "Venezia", "EUR"), ("LUG", "Lugano", "CHF")], settle_seconds=60)
    again_level, again = link_seed([("VEN", "Venezia", "EUR"), ("LUG", "Lugano", "CHF")])

    assert (again_level, again) == (level, {})
    pool = LinkedPool.objects.get()
    assert (pool.code, pool.level, pool.settle_seconds) == ("JUMBO7", level, 60)
    assert (level.reset_mc, level.rate, level.reserve_rate) == (0, Decimal("0.12"), Decimal("0.03"))
    assert sorted(LinkMember.objects.values_list("site__code", "site__currency")) == [
        ("LUG", "CHF"),
        ("VEN", "EUR"),
    ]
    assert {code: credential_find(LinkSiteKey, key).site.code for code, key in keys.items()} == {
        "VEN": "VEN",
        "LUG": "LUG",
    }


def test_a_site_bets_in_its_currency_and_plays_its_jumbo_7_at_the_link() -> None:
    tables_seed(jumbo_7_opening_mc=None)
    membership = site_join("CHF", Decimal("0.935"), "http://link.example:8000", "pv_site_secret")

    assert set(Venue.objects.values_list("currency", flat=True)) == {"CHF"}
    assert list(ExchangeRate.objects.values_list("base", "quote", "rate")) == [
        ("EUR", "CHF", Decimal("0.935"))
    ]
    assert (membership.progressive.name, membership.pool_code, membership.link_url, membership.site_key) == (
        "Jumbo 7 Jackpot",
        "JUMBO7",
        "http://link.example:8000",
        "pv_site_secret",
    )
    site_join("CHF", Decimal("0.935"), "http://link.example:8001", "pv_site_secret")
    assert list(LinkMembership.objects.values_list("link_url", flat=True)) == ["http://link.example:8001"]
    assert ExchangeRate.objects.count() == 1
