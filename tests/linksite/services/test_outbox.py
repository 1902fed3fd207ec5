"""A round's entries owed to the link, written in the round's transaction; the local percentage prize of
a linked progressive deferred to the link, the round's fixed prizes paid here as before."""

from __future__ import annotations

import pytest

from jackpots.models import Hit
from linksite.models import LinkMembership, OutboxEntry
from tables import hooks as tables_hooks
from tables.models import PrizeShare, TableRound
from tests.linksite.factories import COMMUNITY, linked_site
from tests.tables.factories import assert_conserved, body, seat

pytestmark = pytest.mark.django_db


def _seats(answer: dict) -> dict[int, dict]:
    return {s["seat"]: s for s in answer["seats"]}


def test_a_linked_round_writes_its_contribution_then_its_claim_numbered_from_one() -> None:
    t, _table, key, membership = linked_site()
    response = t.post(
        "LUG-CHE-1",
        body("L-1", [seat(1, "3H 5H", 1_000), seat(2, "KC KD", 2_000), seat(3, "9S 9D", 0)], COMMUNITY, 5.2),
        key=key,
    )
    assert response.status_code == 201, response.json()
    entries = list(OutboxEntry.objects.order_by("seq"))
    assert [e.body for e in entries] == [
        {
            "seq": 1,
            "kind": "contribution",
            "round": "LUG-CHE-1:L-1",
            "played_at": "2036-11-21T18:00:05.200Z",
            "currency": "CHF",
            "rate": "0.93710000",
            "wagered_cents": 3_000,
        },
        {
            "seq": 2,
            "kind": "claim",
            "round": "LUG-CHE-1:L-1",
            "played_at": "2036-11-21T18:00:05.200Z",
            "currency": "CHF",
            "rate": "0.93710000",
            "bets": 2,
            "seats": [{"seat": 1, "bet_cents": 1_000}, {"seat": 2, "bet_cents": 2_000}],
        },
    ]
    assert [(e.seq, e.kind, e.round_ref, e.acked_at) for e in entries] == [
        (1, "contribution", "LUG-CHE-1:L-1", None),
        (2, "claim", "LUG-CHE-1:L-1", None),
    ]
    assert entries[0].played_at == TableRound.objects.get(round_id="L-1").at
    membership.refresh_from_db()
    assert (membership.next_seq, membership.acked_seq) == (3, 0)
    # The site's own books: the bets through each entry (a claim adds none).
    assert [e.wagered_through_cents for e in entries] == [3_000, 3_000]
    assert membership.wagered_total_cents == 3_000


def test_the_seven_card_straight_flush_of_a_linked_progressive_is_not_awarded_here() -> None:
    t, _table, key, _membership = linked_site()
    answer = t.post(
        "LUG-CHE-1", body("L-1", [seat(1, "3H 5H", 1_000), seat(2, "KC KD", 2_000)], COMMUNITY, 5), key=key
    ).json()
    seats = _seats(answer)
    # No share of the local meter: the link decides the prize. The flush's fixed €4 is paid here, in CHF
    # at 0.9371 rounded down (374 cents); the straight flush's seat gets nothing from this site.
    assert [seats[n]["award"]["share"] for n in (1, 2)] == [0, 0]
    assert [seats[n]["award"]["progressive"] for n in (1, 2)] == [False, False]
    assert [seats[n]["award"]["amount"] for n in (1, 2)] == [0, 374]
    assert (Hit.objects.count(), PrizeShare.objects.count()) == (0, 0)
    level = t.level("VEN-CHE-1")
    # The bets still feed the site's level: floor(1000 / 0.9371) + floor(2000 / 0.9371) = 1,067 + 2,134
    # EUR cents, 12% to the meter (384,120 mc), 3% to the reserve (96,030 mc); nothing taken.
    assert (level.current_mc, level.reserve_mc, level.cycle) == (384_120, 96_030, 1)
    assert_conserved(level)


def test_the_percentage_prize_is_unchanged_when_the_membership_is_switched_off() -> None:
    t, _table, key, membership = linked_site(active=False)
    answer = t.post(
        "LUG-CHE-1", body("L-1", [seat(1, "3H 5H", 1_000), seat(2, "KC KD", 2_000)], COMMUNITY, 5), key=key
    ).json()
    seats = _seats(answer)
    # As tests/tables/test_jumbo7 without the earlier round: meter floor(3,201 x 0.12) = 384 EUR cents by
    # 1,067:2,134 -> 128 and 256, paid in CHF at 0.9371 with seat 2's flush.
    assert [seats[n]["award"]["share"] for n in (1, 2)] == [128, 256]
    assert [seats[n]["award"]["progressive"] for n in (1, 2)] == [True, True]
    assert Hit.objects.count() == 1
    assert OutboxEntry.objects.count() == 0
    membership.refresh_from_db()
    assert membership.next_seq == 1


def test_a_progressive_without_a_membership_is_played_as_before() -> None:
    t, _table, _key, _membership = linked_site()
    # Caribbean Stud's progressive has no membership: its royal flush is the local engine's.
    answer = t.post("NOG-CSP-1", body("C-1", [seat(1, "AS KS QS JS TS")])).json()
    assert answer["seats"][0]["award"]["progressive"] is True
    assert Hit.objects.count() == 1
    assert OutboxEntry.objects.count() == 0


def test_a_round_without_a_jackpot_bet_owes_nothing_the_others_their_bets_and_the_running_total() -> None:
    t, _table, key, _membership = linked_site()
    t.post("LUG-CHE-1", body("L-0", [seat(1, "KC KD", 0)], "2C 5S 7D TH 3S", 1), key=key)
    t.post(
        "LUG-CHE-1", body("L-1", [seat(1, "KC KD", 500), seat(2, "QC QD", 700)], "2C 5S 7D TH 3S", 2), key=key
    )
    t.post("LUG-CHE-1", body("L-2", [seat(1, "KC KD", 300)], "2C 5S 7D TH 3S", 3), key=key)
    rows = OutboxEntry.objects.order_by("seq")
    assert [(e.seq, e.kind, e.body["wagered_cents"], e.wagered_through_cents) for e in rows] == [
        (1, "contribution", 1_200, 1_200),
        (2, "contribution", 300, 1_500),
    ]


def test_a_round_posted_again_writes_nothing_more() -> None:
    t, _table, key, _membership = linked_site()
    data = body("L-1", [seat(1, "KC KD", 500)], "2C 5S 7D TH 3S", 2)
    assert t.post("LUG-CHE-1", data, key=key).status_code == 201
    assert t.post("LUG-CHE-1", data, key=key).status_code == 200
    assert list(OutboxEntry.objects.values_list("seq", flat=True)) == [1]


def test_a_round_whose_transaction_rolls_back_leaves_no_entry(monkeypatch) -> None:
    t, _table, key, membership = linked_site()

    def fail(event: tables_hooks.RoundRecorded) -> None:
        assert OutboxEntry.objects.count() == 2  # written, in the round's transaction
        raise RuntimeError("a later part of the round failed")

    monkeypatch.setattr(tables_hooks.hooks, "round_recorded", [*tables_hooks.hooks.round_recorded, fail])
    with pytest.raises(RuntimeError):
        t.post("LUG-CHE-1", body("L-1", [seat(1, "3H 5H", 1_000)], COMMUNITY, 5), key=key)
    assert (TableRound.objects.count(), OutboxEntry.objects.count()) == (0, 0)
    membership.refresh_from_db()
    assert membership.next_seq == 1
    monkeypatch.undo()
    # The next round takes the numbers the rolled-back one did not keep.
    t.post("LUG-CHE-1", body("L-2", [seat(1, "KC KD", 500)], "2C 5S 7D TH 3S", 6), key=key)
    assert list(OutboxEntry.objects.values_list("seq", "round_ref")) == [(1, "LUG-CHE-1:L-2")]


def test_the_round_ref_is_cut_to_the_field_for_the_longest_round_ids() -> None:
    t, _table, key, _membership = linked_site()
    long_id = "R" * 64
    t.post("LUG-CHE-1", body(long_id, [seat(1, "KC KD", 500)], "2C 5S 7D TH 3S", 2), key=key)
    entry = OutboxEntry.objects.get()
    assert (entry.round_ref, entry.body["round"]) == (("LUG-CHE-1:" + long_id)[:64],) * 2
    assert LinkMembership.objects.get().next_seq == 2
