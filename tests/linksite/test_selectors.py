"""The pool as the signs show it, and the outbox's totals the link's reconciliation compares with."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from jackpots import hooks as jackpots_hooks
from linksite.models import OutboxEntry
from linksite.selectors import (
    OutboxTotals,
    PoolHeard,
    levels_shown_elsewhere,
    outbox_totals,
    pool_heard,
    progressives_down,
)
from linksite.services.mirror import PoolFrame, pool_mirror_update
from tests.linksite.factories import COMMUNITY, linked_site
from tests.tables.factories import T0, body, seat

pytestmark = pytest.mark.django_db


def test_the_pool_is_shown_in_the_sites_cents_and_the_link_down_after_the_silence(settings) -> None:
    settings.LINK_SILENCE_SECONDS = 30
    *_, membership = linked_site()
    assert pool_heard(membership, T0, "CHF") == PoolHeard(None, "CHF", None, True)
    # EUR 12,345.67891 at 0.9371 CHF a euro: floor(12,345,678.91 x 0.9371) millicents = 1,156,913 cents.
    pool_mirror_update(membership, PoolFrame(1_234_567_891, "EUR", 4), T0)
    assert pool_heard(membership, T0 + timedelta(seconds=30), "CHF") == PoolHeard(1_156_913, "CHF", T0, False)
    assert pool_heard(membership, T0 + timedelta(seconds=31), "CHF") == PoolHeard(1_156_913, "CHF", T0, True)
    # By default in the currency of the progressive's first table (Venice's, in euros).
    assert pool_heard(membership, T0) == PoolHeard(1_234_567, "EUR", T0, False)


def test_outbox_totals_per_membership() -> None:
    t, _table, key, membership = linked_site()
    t.post(
        "LUG-CHE-1", body("L-1", [seat(1, "3H 5H", 1_000), seat(2, "KC KD", 2_000)], COMMUNITY, 5), key=key
    )
    t.post("LUG-CHE-1", body("L-2", [seat(1, "KC KD", 500)], "2C 5S 7D TH 3S", 6), key=key)
    now = timezone.now()
    OutboxEntry.objects.filter(seq=1).update(acked_at=now)
    OutboxEntry.objects.filter(seq=2).update(created_at=now - timedelta(seconds=90))
    OutboxEntry.objects.filter(seq=3).update(created_at=now - timedelta(seconds=10))
    membership.refresh_from_db()
    assert outbox_totals(now) == [
        OutboxTotals(
            membership_id=membership.pk,
            pool_code="JUMBO7",
            entries=3,
            contributions=2,
            claims=1,
            wagered_cents=3_500,
            unacked=2,
            oldest_unacked_age_seconds=90.0,
            acked_seq=0,
            last_seq=3,
        )
    ]


def test_a_linked_level_is_shown_at_the_links_pool_and_its_progressive_down_when_silent(settings) -> None:
    settings.LINK_SILENCE_SECONDS = 30
    t, *_, membership = linked_site()
    jumbo_level = t.level("VEN-CHE-1").pk
    stud_level = t.level("NOG-CSP-1").pk
    jumbo = membership.progressive_id
    assert levels_shown_elsewhere([jumbo_level, stud_level]) == {}
    assert progressives_down([jumbo], T0) == {jumbo}  # never heard
    pool_mirror_update(membership, PoolFrame(1_234_567_891, "EUR", 4), T0)
    assert levels_shown_elsewhere([jumbo_level, stud_level]) == {jumbo_level: (1_234_567_891, 4)}
    assert (
        progressives_down([jumbo, t.table("NOG-CSP-1").progressive_id], T0 + timedelta(seconds=30)) == set()
    )
    assert progressives_down([jumbo], T0 + timedelta(seconds=31)) == {jumbo}
    membership.active = False
    membership.save()
    assert (levels_shown_elsewhere([jumbo_level]), progressives_down([jumbo], T0)) == ({}, set())


def test_the_signs_hear_of_a_newer_pool_only(django_capture_on_commit_callbacks, monkeypatch) -> None:
    t, *_, membership = linked_site()
    heard: list[list[int]] = []
    monkeypatch.setattr(jackpots_hooks.hooks, "levels_changed", [heard.append])
    with django_capture_on_commit_callbacks(execute=True):
        pool_mirror_update(membership, PoolFrame(5, "EUR", 4), T0)
        pool_mirror_update(membership, PoolFrame(4, "EUR", 3), T0)
        pool_mirror_update(membership, PoolFrame(6, "EUR", 5), T0)
    assert heard == [[t.level("VEN-CHE-1").pk]] * 2


def test_a_linked_tables_display_shows_the_links_pool_in_the_venues_currency() -> None:
    t, *_, membership = linked_site()
    local = t.level("VEN-CHE-1")
    pool_mirror_update(membership, PoolFrame(1_234_567_891, "EUR", 4), T0)
    display = t.client.get("/api/v1/tables/LUG-CHE-1").json()
    # The link's €12,345.67 (whole cents of the pool) in francs at 0.9371, down to the cent; the level's
    # own row (this site's books of its own play) is not what the players are shown, nor changed.
    assert (display["pool_amount"], display["amount"], display["level_seq"]) == (1_234_567, 1_156_912, 4)
    assert t.level("VEN-CHE-1").current_mc == local.current_mc
