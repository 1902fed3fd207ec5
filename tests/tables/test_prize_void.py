"""Voiding a table prize's hit voids the prize everywhere: the shared-prize record, every seat's part, every
round's stored answer, and the level (the engine's compensating ledger row). The rounds stay voidable
afterwards: their bets are refunded and the voided prize is never divided again."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from jackpots.audit import jackpots_audit
from jackpots.models import Hit
from jackpots.services import hit_void
from jackpots.services.winners import Winner
from tables.models import PrizePart, PrizeShare, TableRound, TableSeat
from tables.services.parts import part_pay, part_verify
from tests.tables.factories import assert_conserved, at, body, seat, tables_ready

pytestmark = pytest.mark.django_db

RESET_MC = 1_000_000_000
CHIP_MC, CHIP_RESERVE_MC = 35_000, 5_000
SHARED = [
    ("NOG-CSP-1", body("R-1", [seat(1, "9H 8H 7H 6H 5H")], seconds=0)),
    ("VEN-CSP-1", body("V-1", [seat(2, "9D 8D 7D 6D 5D")], seconds=-10)),
    ("NOG-CSP-2", body("N2-1", [seat(3, "9C 8C 7C 6C 5C")], seconds=-20)),
]


def _admin_void(client, manager, hit: Hit, reason: str = "Shuffler fault: the hand was dealt twice"):
    client.force_login(manager)
    data = {"action": "void_selected", "_selected_action": [hit.pk], "confirm": "1", "reason": reason}
    return client.post(reverse("admin:jackpots_hit_changelist"), data, follow=True)


def _award(answer: dict) -> dict:
    return answer["seats"][0]["award"]


def _voided_award() -> dict:
    return {
        "amount": 0,
        "currency": "EUR",
        "amount_eur": "0.00",
        "pool_amount": 0,
        "share": 0,
        "fixed": 0,
        "progressive": False,
        "provisional": False,
        "final_at": None,
        "handpay": False,
    }


def _parts() -> list[tuple[str, int, int]]:
    return list(TableSeat.objects.order_by("id").values_list("round__round_id", "share_cents", "award_cents"))


def test_voiding_a_shared_table_prize_in_the_admin_voids_it_everywhere(client, manager) -> None:
    t = tables_ready()
    for code, data in SHARED:
        assert t.post(code, data).status_code == 201
    # 10% of €10,000.35, divided in three, the odd cent to the first winner.
    assert _parts() == [("R-1", 33_335, 33_335), ("V-1", 33_334, 33_334), ("N2-1", 33_334, 33_334)]
    hit = Hit.objects.get()
    response = _admin_void(client, manager, hit)
    assert "hit_not_voidable" not in response.content.decode()
    hit.refresh_from_db()
    assert (hit.state, hit.voided_by) == (Hit.State.VOIDED, manager)
    assert PrizeShare.objects.get().voided is True
    assert _parts() == [("R-1", 0, 0), ("V-1", 0, 0), ("N2-1", 0, 0)]
    for round_ in TableRound.objects.all():
        assert _award(round_.response) == _voided_award()
    # A retry of a round answers the voided prize too.
    assert _award(t.post(*SHARED[0]).json()) == _voided_award()
    # The level is back as if the prize had never been won: the reset value and three chips.
    level = t.level("NOG-CSP-1")
    assert (level.current_mc, level.reserve_mc) == (RESET_MC + 3 * CHIP_MC, 3 * CHIP_RESERVE_MC)
    assert_conserved(level)

    # Voiding a round now refunds its bets and divides nothing: the voided prize stays at nought.
    answer = t.void("NOG-CSP-2", "N2-1")
    assert answer.status_code == 200
    assert answer.json()["refunds"] == [{"seat": 3, "jackpot_bet": 100}]
    assert _parts() == [("R-1", 0, 0), ("V-1", 0, 0), ("N2-1", 0, 0)]
    assert _award(TableRound.objects.get(round_id="R-1").response) == _voided_award()
    level.refresh_from_db()
    assert (level.current_mc, level.reserve_mc) == (RESET_MC + 2 * CHIP_MC, 2 * CHIP_RESERVE_MC)
    assert_conserved(level)
    assert jackpots_audit()[1] == []


def test_the_single_round_of_a_voided_table_prize_stays_voidable(client, manager) -> None:
    t = tables_ready()
    assert t.post(*SHARED[0]).status_code == 201
    hit = Hit.objects.get()
    _admin_void(client, manager, hit)
    hit.refresh_from_db()
    assert hit.state == Hit.State.VOIDED
    answer = t.void("NOG-CSP-1", "R-1")
    assert answer.status_code == 200
    assert answer.json()["refunds"] == [{"seat": 1, "jackpot_bet": 100}]
    level = t.level("NOG-CSP-1")
    assert (level.current_mc, level.reserve_mc) == (RESET_MC, 0)
    assert _parts() == [("R-1", 0, 0)]
    assert_conserved(level)
    assert jackpots_audit()[1] == []


def test_voiding_the_only_round_of_a_prize_paid_at_the_table_voids_the_prize(client) -> None:
    t = tables_ready()
    t.post(*SHARED[0])
    assert Hit.objects.get().state == Hit.State.PAID
    answer = t.void("NOG-CSP-1", "R-1")
    assert answer.status_code == 200
    hit = Hit.objects.get()
    assert (hit.state, hit.void_reason) == (Hit.State.VOIDED, "table NOG-CSP-1 round R-1: shuffler jammed")
    assert PrizeShare.objects.get().voided is True
    assert _parts() == [("R-1", 0, 0)]
    assert_conserved(t.level("NOG-CSP-1"))
    assert jackpots_audit()[1] == []


def test_a_table_prize_the_floor_paid_is_not_voided_by_a_round_void(client, manager, manager2) -> None:
    t = tables_ready()
    t.post("NOG-CSP-1", body("R-1", [seat(1, "AS KS QS JS TS")]))
    part = part_verify(part_verify(PrizePart.objects.get(), manager), manager2)
    PrizeShare.objects.update(closes_at=timezone.now() - timedelta(seconds=1))
    part_pay(part, manager, Winner("Mario Rossi", "passport", "YA1234567", "IT"))
    answer = t.void("NOG-CSP-1", "R-1")
    assert (answer.status_code, answer.json()["error"]) == (409, "hit_not_voidable")
    assert TableRound.objects.get().state == TableRound.State.RECORDED
    assert _award(TableRound.objects.get().response)["amount"] == 1_000_035
    assert at(60) == _award(TableRound.objects.get().response)["final_at"]


def test_the_audit_reports_a_voided_table_hit_whose_prize_stands() -> None:
    t = tables_ready()
    for code, data in SHARED[:2]:
        t.post(code, data)
    hit = Hit.objects.get()
    # The engine's void alone restores the level and leaves the prize and the seats' parts standing.
    hit_void(hit, None, "malfunction")
    share = PrizeShare.objects.get()
    assert [str(d) for d in jackpots_audit()[1]] == [
        f"level {hit.level_id}: shared prize {share.id}: its hit {hit.ref} is voided, the prize or a seat's "
        "part stands"
    ]


def test_the_audit_reports_the_parts_of_a_live_prize_that_do_not_add_up() -> None:
    t = tables_ready()
    for code, data in SHARED[:2]:
        t.post(code, data)
    TableSeat.objects.filter(round__round_id="V-1").update(share_cents=50_000)
    share = PrizeShare.objects.get()
    assert [str(d) for d in jackpots_audit()[1]] == [
        f"level {share.level_id}: shared prize {share.id}: its parts add up to 100002 cents, not 100003"
    ]


def test_voiding_a_fixed_prize_in_the_admin_voids_the_seats_prize(client, manager) -> None:
    t = tables_ready()
    # A 6-card straight flush (2 to 7 of clubs): €5,000 fixed, over the €1,200 threshold.
    t.post("NOG-CHE-1", body("C-1", [seat(1, "3C 5C", bet=500)], community="2C 4C 6C 7C 9D"))
    hit = Hit.objects.get()
    _admin_void(client, manager, hit)
    hit.refresh_from_db()
    assert (hit.state, hit.voided_by) == (Hit.State.VOIDED, manager)
    assert _parts() == [("C-1", 0, 0)]
    assert TableSeat.objects.get().fixed_cents == 0
    assert _award(TableRound.objects.get().response) == _voided_award()
    # The round stays voidable: its bet is refunded and taken back out of the level.
    answer = t.void("NOG-CHE-1", "C-1")
    assert (answer.status_code, answer.json()["refunds"]) == (200, [{"seat": 1, "jackpot_bet": 500}])
    level = t.level("NOG-CHE-1")
    assert (level.current_mc, level.reserve_mc) == (0, 0)
    assert jackpots_audit()[1] == []


def test_a_round_void_voids_its_fixed_prize_waiting_for_the_floor() -> None:
    t = tables_ready()
    t.post("NOG-CHE-1", body("C-1", [seat(1, "3C 5C", bet=500)], community="2C 4C 6C 7C 9D"))
    # A later round with a prize of its own does not stop the void: a fixed prize counted no bets.
    t.post("VEN-CHE-1", body("C-2", [seat(1, "3H 5H", bet=500)], community="2H 4H 6H 7H 9D", seconds=5))
    assert t.void("NOG-CHE-1", "C-1").status_code == 200
    assert list(Hit.objects.order_by("number").values_list("state", flat=True)) == ["voided", "hit"]
    assert _parts() == [("C-1", 0, 0), ("C-2", 0, 500_000)]
    assert jackpots_audit()[1] == []
