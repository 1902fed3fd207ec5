"""GET /api/v1/link/awards (docs/wide-area.md "Down"): a site's awards with its own parts only, a page at
a time, bad queries refused, a valid key needed."""

from __future__ import annotations

import pytest

from common.credentials import credentials_revoke
from linkcentral.models import LinkSiteKey
from linkcentral.selectors import awards_for_site
from tests.linkcentral.api_factories import (
    Link,
    award_make,
    awards_get,
    claim_entry,
)

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.linkcentral.link_urls")]


def two_awards(link: Link) -> tuple:
    """A shared award (a CHX claim of two bets and a NOG claim of one) and a NOG-only one."""
    chx_claim = claim_entry(link, link.chx_member, 1, [(2, 500), (5, 500)])
    nog_claim = claim_entry(link, link.nog_member, 1, [(3, 467)], rate="1")
    # A prize of 1,000 cents in three parts by the bets (534, 534, 467 pool cents): 348 + 348 + 304, the
    # cent left to the first; each part in its site's currency (CHF at 0.935: 325 each).
    shared = award_make(
        link,
        1_000_000,
        [(chx_claim, 2, 348_000, 325), (chx_claim, 5, 348_000, 325), (nog_claim, 3, 304_000, 304)],
    )
    nog_only = award_make(
        link,
        50_000_000,
        [(claim_entry(link, link.nog_member, 2, [(1, 500)], rate="1"), 1, 50_000_000, 50_000)],
    )
    return shared, nog_only, chx_claim


def test_a_site_gets_the_awards_that_concern_it_with_its_own_parts_only(link):
    shared, nog_only, chx_claim = two_awards(link)
    response = awards_get(link.chx_key, "pool=JUMBO7")
    assert response.status_code == 200
    assert response.json() == {
        "pool": "JUMBO7",
        "currency": "EUR",
        "site_currency": "CHF",
        "more": False,
        "awards": [
            {
                "id": shared.pk,
                "played_at": chx_claim.played_at.isoformat(),
                "decided_at": shared.decided_at.isoformat(),
                "amount_mc": 1_000_000,
                "parts": [
                    {"number": 1, "seq": 1, "round": "CHX-T1:1", "seat": 2, "amount_mc": 348_000,
                     "site_cents": 325, "rate": "0.93500000"},
                    {"number": 2, "seq": 1, "round": "CHX-T1:1", "seat": 5, "amount_mc": 348_000,
                     "site_cents": 325, "rate": "0.93500000"},
                ],
            }
        ],
    }  # fmt: skip
    nog = awards_get(link.nog_key, "pool=JUMBO7").json()
    assert [(a["id"], [p["number"] for p in a["parts"]]) for a in nog["awards"]] == [
        (shared.pk, [3]),
        (nog_only.pk, [1]),
    ]
    after = awards_get(link.nog_key, f"pool=JUMBO7&after={shared.pk}").json()
    assert [a["id"] for a in after["awards"]] == [nog_only.pk]
    assert awards_get(link.chx_key, f"pool=JUMBO7&after={shared.pk}").json()["awards"] == []


def test_awards_come_a_page_at_a_time(link):
    shared, nog_only, _ = two_awards(link)
    first = awards_for_site(link.nog, "JUMBO7", 0, page=1)
    assert ([a["id"] for a in first["awards"]], first["more"]) == ([shared.pk], True)
    second = awards_for_site(link.nog, "JUMBO7", shared.pk, page=1)
    assert ([a["id"] for a in second["awards"]], second["more"]) == ([nog_only.pk], False)


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ("", 400, "invalid_query"),
        ("pool=JUMBO7&after=x", 400, "invalid_query"),
        ("pool=JUMBO7&after=-1", 400, "invalid_query"),
        ("pool=OTHER", 403, "not_a_member"),
    ],
)
def test_a_bad_awards_query_is_refused(link, query, status, code):
    response = awards_get(link.chx_key, query)
    assert (response.status_code, response.json()["error"]) == (status, code)


def test_the_awards_need_a_valid_key(link):
    credentials_revoke(LinkSiteKey.objects.filter(site=link.chx))
    response = awards_get(link.chx_key, "pool=JUMBO7")
    assert (response.status_code, response.json()["error"]) == (401, "key_invalid")
