"""POST /api/v1/link/entries (docs/wide-area.md "Up"): entries kept once in seq order, retries and a
forwarder killed mid-post acknowledged with nothing changed, gaps and conflicts refused whole, the site's
books, a broker that fails. Refusals of bad input: test_entries_refused.py; the awards: test_awards_api.py."""

from __future__ import annotations

import sys
import types
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.utils import timezone

from common.times import TimeWindow
from linkcentral.models import LinkEntry, LinkMember
from linkcentral.services.entries import entries_receive
from tests.linkcentral.api_factories import (
    RESET_MC,
    batch,
    claim,
    contribution,
    instant,
    parse_at,
    posted,
    state,
)

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.linkcentral.link_urls")]


def test_a_batch_is_kept_as_sent_converted_down_and_acked_with_the_pool(
    link, applied, django_capture_on_commit_callbacks
):
    through = instant(1)
    data = batch(contribution(1, 1500), claim(2, [(2, 500), (5, 1000), (6, 100)]), through=through)
    response = posted(link, data, django_capture_on_commit_callbacks)
    assert response.status_code == 200
    # The pool as it stands: the level's reset, as seeded (its first value).
    assert response.json() == {"acked": 2, "pool": {"amount_mc": RESET_MC, "currency": "EUR", "value_seq": 1}}
    first, second = LinkEntry.objects.order_by("seq")
    # floor(1500 / 0.935) = floor(1604.27...) = 1604 cents of the pool's currency.
    assert (first.kind, first.round_ref, first.wagered_cents, first.wagered_pool_cents) == (
        "contribution", "CHX-T3:8801", 1500, 1604,
    )  # fmt: skip
    assert (first.currency, first.rate, first.member_id, first.applied_at) == (
        "CHF", Decimal("0.93500000"), link.chx_member.pk, None,
    )  # fmt: skip
    assert (second.kind, second.bets, second.wagered_cents, second.wagered_pool_cents) == ("claim", 3, 0, 0)
    # Each bet kept as the wire names it, in its order: the weights its prize is divided by.
    assert second.seats == [
        {"seat": 2, "bet_cents": 500}, {"seat": 5, "bet_cents": 1000}, {"seat": 6, "bet_cents": 100},
    ]  # fmt: skip
    assert first.played_at == parse_at(data["entries"][0]["played_at"])
    member = LinkMember.objects.get(pk=link.chx_member.pk)
    assert (member.acked_seq, member.through) == (2, parse_at(through))
    assert member.heard_at == first.received_at
    assert applied == [link.pool.pk]


@pytest.mark.parametrize(
    ("wagered", "rate", "pool_cents"),
    [(1, "0.935", 1), (1000, "1.07", 934), (1000, "0.5", 2000), (0, "0.935", 0), (999, "3", 333)],
)
def test_bets_are_converted_down_to_the_pools_cent(
    link, django_capture_on_commit_callbacks, wagered, rate, pool_cents
):
    response = posted(link, batch(contribution(1, wagered, rate=rate)), django_capture_on_commit_callbacks)
    assert response.status_code == 200
    assert LinkEntry.objects.get().wagered_pool_cents == pool_cents


def test_a_site_in_the_pools_currency_sends_rate_1(link, django_capture_on_commit_callbacks):
    data = batch(contribution(1, 2500, rate="1.00000000", currency="EUR"))
    response = posted(link, data, django_capture_on_commit_callbacks, key=link.nog_key)
    assert (response.status_code, response.json()["acked"]) == (200, 1)
    assert LinkEntry.objects.get().wagered_pool_cents == 2500
    refused = posted(
        link, batch(contribution(2, 100, rate="0.99", currency="EUR")), django_capture_on_commit_callbacks,
        key=link.nog_key,
    )  # fmt: skip
    assert (refused.status_code, refused.json()["field"]) == (400, "entries[0].rate")


def test_the_same_batch_again_is_acked_and_changes_nothing(link, applied, django_capture_on_commit_callbacks):
    data = batch(contribution(1), claim(2, [(4, 500)]))
    first = posted(link, data, django_capture_on_commit_callbacks)
    entries, acked, through, *_ = state(link)
    again = posted(link, data, django_capture_on_commit_callbacks)
    assert again.status_code == 200
    assert again.json() == first.json()
    assert state(link)[:3] == (entries, acked, through)
    assert LinkEntry.objects.count() == 2
    assert applied == [link.pool.pk]  # nothing new: the apply task is not told again


def test_a_forwarder_killed_after_the_commit_resends_and_each_entry_is_kept_once(
    link, applied, django_capture_on_commit_callbacks
):
    first = batch(contribution(1, 1000), contribution(2, 2000))
    # The link committed the batch; the answer never reached the forwarder (killed mid-post).
    entries_receive(link.chx, first, timezone.now())
    # On restart it sends its outbox from the oldest unacknowledged entry: the same two and a new one.
    resent = batch(*first["entries"], contribution(3, 3000))
    response = posted(link, resent, django_capture_on_commit_callbacks)
    assert (response.status_code, response.json()["acked"]) == (200, 3)
    rows = list(LinkEntry.objects.order_by("seq").values_list("seq", "wagered_cents"))
    assert rows == [(1, 1000), (2, 2000), (3, 3000)]


def test_the_rest_of_a_partly_received_batch_is_kept(link, django_capture_on_commit_callbacks):
    posted(link, batch(contribution(1)), django_capture_on_commit_callbacks)
    response = posted(link, batch(contribution(1), contribution(2)), django_capture_on_commit_callbacks)
    assert (response.status_code, response.json()["acked"]) == (200, 2)


def test_a_gap_is_refused_with_the_seq_expected_and_nothing_changed(
    link, applied, django_capture_on_commit_callbacks
):
    posted(link, batch(contribution(1), contribution(2)), django_capture_on_commit_callbacks)
    before = state(link)
    for entries in (
        [contribution(4)],
        [contribution(3), contribution(5)],
        [contribution(2), contribution(4)],
    ):
        response = posted(link, batch(*entries, through=instant(0)), django_capture_on_commit_callbacks)
        assert response.status_code == 409
        assert response.json() == {
            "error": "entry_gap",
            "detail": f"Entry {entries[-1]['seq']} comes after a gap: the link expects "
            f"{3 if entries[0]['seq'] != 3 else 4}; nothing was changed.",
            "expected": 3 if entries[0]["seq"] != 3 else 4,
        }
        assert state(link) == before
    assert applied == [link.pool.pk]


def test_a_different_entry_under_a_received_seq_is_a_conflict_and_nothing_changes(
    link, django_capture_on_commit_callbacks
):
    posted(link, batch(contribution(1, 1500), contribution(2, 1500)), django_capture_on_commit_callbacks)
    before = state(link)
    changed = dict(contribution(2, 1500), wagered_cents=1600)
    response = posted(link, batch(changed, contribution(3)), django_capture_on_commit_callbacks)
    assert response.status_code == 409
    assert response.json() == {
        "error": "entry_conflict",
        "detail": "Entry 2 was already received with other content; nothing was changed.",
        "seq": 2,
    }
    assert state(link) == before
    assert not LinkEntry.objects.filter(seq=3).exists()


@pytest.mark.parametrize(
    "seats",
    [
        [{"seat": 2, "bet_cents": 501}, {"seat": 5, "bet_cents": 1000}],  # another bet
        [{"seat": 5, "bet_cents": 1000}, {"seat": 2, "bet_cents": 500}],  # the bets in another order
        [{"seat": 3, "bet_cents": 500}, {"seat": 5, "bet_cents": 1000}],  # another seat
    ],
)
def test_a_claim_with_other_bets_under_a_received_seq_is_a_conflict(
    link, django_capture_on_commit_callbacks, seats
):
    posted(link, batch(claim(1, [(2, 500), (5, 1000)])), django_capture_on_commit_callbacks)
    before = state(link)
    response = posted(
        link, batch(dict(claim(1, []), bets=2, seats=seats)), django_capture_on_commit_callbacks
    )
    assert (response.status_code, response.json()["error"], response.json()["seq"]) == (
        409,
        "entry_conflict",
        1,
    )
    assert state(link) == before


def test_a_claims_seat_objects_written_otherwise_are_the_same_entry(link, django_capture_on_commit_callbacks):
    first = claim(1, [(2, 500), (5, 1000)])
    assert posted(link, batch(first), django_capture_on_commit_callbacks).status_code == 200
    reordered = dict(first, seats=[{"bet_cents": 500, "seat": 2}, {"bet_cents": 1000, "seat": 5}])
    again = posted(link, batch(reordered), django_capture_on_commit_callbacks)
    assert (again.status_code, again.json()["acked"]) == (200, 1)
    assert LinkEntry.objects.count() == 1


def test_the_same_entry_written_otherwise_is_the_same_entry(link, django_capture_on_commit_callbacks):
    entry = contribution(1, 1500, played_at="2026-11-27T10:14:51.200Z")
    same = dict(entry, rate="0.935", played_at="2026-11-27T11:14:51.2+01:00")
    with pytest.MonkeyPatch.context() as patch:
        # Fixed instants, whatever today is: the server's window is widened for them.
        patch.setattr("linkcentral.services.entries.time_window", lambda now: _wide_window())
        assert (
            posted(
                link, batch(entry, through="2026-11-27T10:15:00Z"), django_capture_on_commit_callbacks
            ).status_code
            == 200
        )
        again = posted(link, batch(same, through="2026-11-27T10:15:00Z"), django_capture_on_commit_callbacks)
    assert (again.status_code, again.json()["acked"]) == (200, 1)


def _wide_window() -> TimeWindow:
    return TimeWindow(datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC), 0, 0)


def test_through_only_moves_forward_and_an_empty_batch_says_so(
    link, applied, django_capture_on_commit_callbacks
):
    later, earlier = instant(1), instant(30)
    response = posted(link, batch(through=later), django_capture_on_commit_callbacks)
    assert response.json()["acked"] == 0
    assert applied == [link.pool.pk]  # a claim may now be decidable
    posted(link, batch(through=earlier), django_capture_on_commit_callbacks)
    member = LinkMember.objects.get(pk=link.chx_member.pk)
    assert (member.through, member.acked_seq) == (parse_at(later), 0)
    assert applied == [link.pool.pk]


def books(data: dict, seq: int, wagered: int) -> dict:
    return {**data, "books": {"seq": seq, "wagered_cents": wagered}}


def test_the_sites_own_books_are_kept_when_newer_and_about_entries_the_link_holds(
    link, applied, django_capture_on_commit_callbacks
):
    sent = batch(contribution(1, 1500), contribution(2, 2000))
    assert posted(link, books(sent, 2, 3500), django_capture_on_commit_callbacks).status_code == 200
    # A late batch re-sent with older books leaves the newer ones kept; an empty batch may carry them too.
    posted(link, books(batch(contribution(1, 1500)), 1, 1500), django_capture_on_commit_callbacks)
    member = LinkMember.objects.get(pk=link.chx_member.pk)
    assert (member.books_seq, member.books_wagered_cents) == (2, 3500)
    posted(link, books(batch(), 2, 3400), django_capture_on_commit_callbacks)
    member.refresh_from_db()
    assert (member.books_seq, member.books_wagered_cents) == (2, 3400)


@pytest.mark.parametrize(
    ("books_value", "field"),
    [
        ({"seq": 3, "wagered_cents": 4500}, "books.seq"),  # past the last entry the batch leaves the link
        ({"seq": -1, "wagered_cents": 0}, "books.seq"),
        ({"seq": 1, "wagered_cents": "1500"}, "books.wagered_cents"),
        ({"seq": 1, "wagered_cents": 2**62 + 1}, "books.wagered_cents"),
        ({"seq": 1}, "books.wagered_cents"),
        ({"seq": 1, "wagered_cents": 1500, "claims": 0}, "books.claims"),
        ([1, 1500], "books"),
        (None, "books"),
    ],
)
def test_bad_books_refuse_the_batch_and_change_nothing(
    link, books_value, field, django_capture_on_commit_callbacks
):
    before = state(link)
    data = {**batch(contribution(1, 1500), contribution(2, 2000)), "books": books_value}
    response = posted(link, data, django_capture_on_commit_callbacks)
    assert (response.status_code, response.json()["error"], response.json()["field"]) == (
        400,
        "invalid_body",
        field,
    )
    assert state(link) == before


def test_a_broker_that_fails_loses_no_entry_and_no_answer(
    link, monkeypatch, django_capture_on_commit_callbacks
):
    def down(pool_id: int) -> None:
        raise ConnectionError("broker down")

    task = types.SimpleNamespace(delay=down)
    monkeypatch.setitem(sys.modules, "linkcentral.tasks", types.SimpleNamespace(link_entries_apply_task=task))
    response = posted(link, batch(contribution(1)), django_capture_on_commit_callbacks)
    assert (response.status_code, response.json()["acked"]) == (200, 1)
    assert LinkEntry.objects.count() == 1
