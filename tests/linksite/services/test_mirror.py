"""The pool as heard: only a newer value_seq replaces it; every frame says the link was heard; awards are
kept once."""

from __future__ import annotations

from datetime import timedelta

import pytest

from linksite.models import LinkPoolMirror, SiteAward
from linksite.services.mirror import (
    FrameInvalid,
    PoolFrame,
    awards_store,
    link_heard,
    pool_frame_parse,
    pool_mirror_update,
)
from tests.linksite.factories import linked_site
from tests.tables.factories import T0

pytestmark = pytest.mark.django_db


def _mirror() -> tuple[int, str, int, object]:
    m = LinkPoolMirror.objects.get()
    return (m.amount_mc, m.currency, m.value_seq, m.heard_at)


def test_a_newer_value_seq_replaces_the_pool_an_older_or_equal_one_does_not() -> None:
    *_, membership = linked_site()
    assert pool_mirror_update(membership, PoolFrame(5_000_000, "EUR", 981), T0) is True
    assert _mirror() == (5_000_000, "EUR", 981, T0)
    later = T0 + timedelta(seconds=2)
    # A snapshot taken before the change arriving after it: older, kept out; the link was heard though.
    assert pool_mirror_update(membership, PoolFrame(4_000_000, "EUR", 980), later) is False
    assert _mirror() == (5_000_000, "EUR", 981, later)
    assert pool_mirror_update(membership, PoolFrame(4_500_000, "EUR", 981), later) is False
    assert _mirror() == (5_000_000, "EUR", 981, later)
    assert pool_mirror_update(membership, PoolFrame(5_100_000, "EUR", 982), later) is True
    assert _mirror() == (5_100_000, "EUR", 982, later)
    # A frame heard earlier than the last one (two writers) never moves heard_at back.
    assert pool_mirror_update(membership, PoolFrame(5_200_000, "EUR", 983), T0) is True
    assert _mirror() == (5_200_000, "EUR", 983, later)


def test_a_heartbeat_says_the_link_was_heard_and_changes_no_amount() -> None:
    *_, membership = linked_site()
    link_heard(membership, T0)  # nothing heard yet: nothing to keep
    assert LinkPoolMirror.objects.count() == 0
    pool_mirror_update(membership, PoolFrame(5_000_000, "EUR", 1), T0)
    link_heard(membership, T0 + timedelta(seconds=5))
    assert _mirror() == (5_000_000, "EUR", 1, T0 + timedelta(seconds=5))


def test_a_frame_without_its_fields_is_refused() -> None:
    assert pool_frame_parse({"amount_mc": 7, "currency": "EUR", "value_seq": 3}) == PoolFrame(7, "EUR", 3)
    for bad in (
        {"amount_mc": -1, "currency": "EUR", "value_seq": 3},
        {"amount_mc": 7, "currency": "EURO", "value_seq": 3},
        {"amount_mc": 7, "currency": "EUR", "value_seq": True},
        {"amount_mc": "7", "currency": "EUR", "value_seq": 3},
    ):
        with pytest.raises(FrameInvalid):
            pool_frame_parse(bad)


def test_an_award_is_kept_once() -> None:
    *_, membership = linked_site()
    first = awards_store(membership, [{"id": 17, "amount_mc": 9}, {"id": 18, "amount_mc": 3}])
    again = awards_store(membership, [{"id": 18, "amount_mc": 3}, {"id": 19, "amount_mc": 4}])
    assert [a.link_award_id for a in first] == [17, 18]
    assert [a.link_award_id for a in again] == [19]
    assert list(SiteAward.objects.order_by("link_award_id").values_list("link_award_id", "body")) == [
        (17, {"id": 17, "amount_mc": 9}),
        (18, {"id": 18, "amount_mc": 3}),
        (19, {"id": 19, "amount_mc": 4}),
    ]
