"""The rounds API: keys, retries, bad cards refused with nothing changed, voids."""

from __future__ import annotations

from datetime import timedelta

import orjson
import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from jackpots.models import Hit, LedgerEntry
from jackpots.services import level_parameters_change, level_resume, level_suspend
from jackpots.services.winners import Winner
from tables.models import PrizePart, PrizeShare, TableKey, TableRound
from tables.round_input import RoundError
from tables.services import round_void
from tables.services.parts import part_pay, part_verify
from tests.tables.factories import assert_conserved, body, seat, tables_ready

pytestmark = pytest.mark.django_db
RESET_MC = 1_000_000_000
NOTHING = "2C 5D 7H 9S JC"


def level_row(level) -> tuple:
    level.refresh_from_db()
    return (
        level.current_mc,
        level.reserve_mc,
        level.overflow_mc,
        level.wagered_cents,
        level.hits,
        level.total_won_cents,
        level.cycle,
        level.carry_wagered_cents,
        level.carry_added_mc,
        level.carry_reserved_mc,
    )


def test_a_retried_round_returns_the_first_answer_and_counts_once() -> None:
    t = tables_ready()
    data = body("R-1", [seat(1, "9C 9D 9H 9S 2D"), seat(2, NOTHING.replace("9S", "8S"))])
    first = t.post("NOG-CSP-1", data)
    level = t.level("NOG-CSP-1")
    after_first = level_row(level)
    again = t.post("NOG-CSP-1", data)
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert level_row(level) == after_first
    assert TableRound.objects.count() == 1
    changed = dict(data, seats=[seat(1, "9C 9D 9H 9S 3D")])
    conflict = t.post("NOG-CSP-1", changed)
    assert (conflict.status_code, conflict.json()["error"]) == (409, "round_conflict")


@pytest.mark.parametrize(
    ("seats", "community", "code", "detail"),
    [
        ([seat(1, "AS KS QS JS 1S")], "", "unknown_card", "seat 1: '1S' is not a card"),
        ([seat(1, "AS KS QS JS")], "", "wrong_card_count", "seat 1: expected 5 cards, got 4."),
        (
            [seat(1, "AS KS QS JS TS"), seat(2, "AS 2D 3D 4D 5D")],
            "",
            "duplicate_card",
            "AS is dealt in seat 1",
        ),
        ([seat(1, "AS KS QS JS TS", bet=50)], "", "bad_jackpot_bet", "seat 1: the jackpot bet at this table"),
        (
            [seat(1, "AS KS QS JS TS"), seat(1, "2D 3D 4D 5D 7D")],
            "",
            "duplicate_seat",
            "seat 1 is posted twice.",
        ),
        ([seat(1, "AS KS QS JS TS")], "2C 3C 4C 5C 6C", "wrong_card_count", "community: expected 0 cards"),
    ],
)
def test_bad_rounds_are_refused_and_change_nothing(seats, community, code, detail) -> None:
    t = tables_ready()
    level = t.level("NOG-CSP-1")
    before = level_row(level)
    ledger = LedgerEntry.objects.count()
    response = t.post("NOG-CSP-1", body("BAD-1", seats, community=community))
    assert response.status_code == 400
    assert response.json()["error"] == code
    assert response.json()["detail"].startswith(detail)
    assert (level_row(level), LedgerEntry.objects.count(), TableRound.objects.count()) == (before, ledger, 0)


@pytest.mark.parametrize(("field", "value"), [("dealer", None), ("community", None), ("dealer", "2S 4D")])
def test_card_lists_that_are_not_lists_are_refused(field, value) -> None:
    t = tables_ready()
    response = t.post("NOG-CSP-1", dict(body("BAD-2", [seat(1, NOTHING)]), **{field: value}))
    assert (response.status_code, response.json()) == (
        400,
        {"error": "invalid_round", "detail": f"{field} must be a list of card codes."},
    )
    assert TableRound.objects.count() == 0


@pytest.mark.parametrize("round_id", ["", "a/b", "x" * 65, 42, "round 1"])
def test_round_ids_that_could_not_be_voided_by_url_are_refused(round_id) -> None:
    t = tables_ready()
    response = t.post("NOG-CSP-1", dict(body("tmp", [seat(1, NOTHING)]), round=round_id))
    assert (response.status_code, response.json()["error"]) == (400, "invalid_round")
    assert TableRound.objects.count() == 0


def test_holdem_checks_community_and_hole_cards() -> None:
    t = tables_ready()
    missing = t.post("VEN-CHE-1", body("H-1", [seat(1, "AS KS", 100)], community="2C 3C 4C"))
    assert (missing.status_code, missing.json()["error"]) == (400, "wrong_card_count")
    clash = t.post("VEN-CHE-1", body("H-2", [seat(1, "AS KS", 100)], community="AS 3C 4C 5D 9H"))
    assert clash.json() == {"error": "duplicate_card", "detail": "AS is dealt in community and in seat 1."}


def test_keys_open_only_their_own_table() -> None:
    t = tables_ready()
    data = body("K-1", [seat(1, NOTHING)])
    assert (
        t.client.post("/api/v1/tables/NOG-CSP-1/rounds", data, content_type="application/json").status_code
        == 401
    )
    wrong = t.post("NOG-CSP-1", data, key=t.keys["NOG-CSP-2"])
    assert (wrong.status_code, wrong.json()["error"]) == (403, "forbidden_table")
    assert t.post("XXX-1", data, key=t.keys["NOG-CSP-2"]).status_code == 404
    revoked = TableKey.objects.get(table__code="NOG-CSP-1")
    revoked.revoked_at = revoked.created_at
    revoked.save()
    assert t.post("NOG-CSP-1", data).status_code == 401


def test_void_of_a_royal_round_restores_the_level_and_refunds_the_chips() -> None:
    t = tables_ready()
    level = t.level("NOG-CSP-1")
    t.post("NOG-CSP-1", body("V-0", [seat(1, NOTHING), seat(2, "3C 3D 4H 8S KC")]))
    before = level_row(level)
    t.post("NOG-CSP-1", body("V-1", [seat(1, "AS KS QS JS TS"), seat(2, NOTHING)], seconds=100))
    assert level_row(level)[6] == 2  # the royal reset the level
    response = t.void("NOG-CSP-1", "V-1")
    assert response.status_code == 200
    assert response.json() == {
        "round": "V-1",
        "table": "NOG-CSP-1",
        "state": "voided",
        "currency": "EUR",
        "refunds": [{"seat": 1, "jackpot_bet": 100}, {"seat": 2, "jackpot_bet": 100}],
        "reason": "shuffler jammed",
    }
    assert level_row(level) == before
    assert Hit.objects.get(level=level).state == Hit.State.VOIDED
    assert t.void("NOG-CSP-1", "V-1").json() == response.json()  # a retried void
    assert t.void("NOG-CSP-1", "NOPE").status_code == 404
    assert_conserved(level)


def test_void_of_a_round_whose_prize_was_shared_divides_it_again() -> None:
    t = tables_ready()
    t.post("NOG-CSP-1", body("S-1", [seat(1, "AS KS QS JS TS")]))
    t.post("VEN-CSP-1", body("S-2", [seat(1, "AH KH QH JH TH")], seconds=-10))
    assert TableRound.objects.get(round_id="S-1").seat_rows.get().award_cents == 500_018
    t.void("VEN-CSP-1", "S-2")
    # The first royal gets the whole prize back; the level keeps its reset, minus the voided chip.
    assert TableRound.objects.get(round_id="S-1").seat_rows.get().award_cents == 1_000_035
    level = t.level("NOG-CSP-1")
    assert (level.current_mc, level.cycle) == (RESET_MC + 5_000, 2)
    assert not PrizeShare.objects.get().voided
    assert_conserved(level)


def test_a_void_behind_a_later_prize_is_refused_and_changes_nothing() -> None:
    t = tables_ready()
    t.post("NOG-CSP-1", body("L-1", [seat(1, "9S 8S 7S 6S 5S")]))
    t.post("NOG-CSP-1", body("L-2", [seat(1, "9H 8H 7H 6H 5H")], seconds=500))
    level = t.level("NOG-CSP-1")
    before = level_row(level)
    response = t.void("NOG-CSP-1", "L-1")
    assert (response.status_code, response.json()["error"]) == (409, "later_hit")
    assert level_row(level) == before
    assert TableRound.objects.get(round_id="L-1").state == "recorded"


def test_void_of_a_contribution_only_round_keeps_the_carry_rule() -> None:
    t = tables_ready()
    level = t.level("VEN-CHE-1")
    for n, bet in enumerate([333, 777, 1_001]):
        t.post("VEN-CHE-1", body(f"C-{n}", [seat(1, "KC KD", bet)], community="2C 5S 7D TH 3S", seconds=n))
    t.void("VEN-CHE-1", "C-1")
    level.refresh_from_db()
    # As if only 333 + 1,001 cents had been bet: floor(1,334 x 0.12) and floor(1,334 x 0.03).
    assert (level.current_mc, level.reserve_mc, level.wagered_cents) == (160_080, 40_020, 1_334)
    assert (level.carry_wagered_cents, level.carry_added_mc) == (1_334, 160_080)
    assert_conserved(level)


def test_issue_key_for_a_table_prints_a_working_key(capsys) -> None:
    t = tables_ready()
    call_command("issue_key", "--table", "nog-csp-2")
    key = capsys.readouterr().out.strip()
    assert key.startswith("pv_tbl_")
    assert t.post("NOG-CSP-2", body("IK-1", [seat(1, NOTHING)]), key=key).status_code == 201


def test_rounds_counted_in_a_later_prize_or_opening_a_shared_one_are_voided_in_order() -> None:
    t = tables_ready()
    t.post("NOG-CSP-1", body("O-0", [seat(1, NOTHING)]))
    t.post("NOG-CSP-1", body("O-1", [seat(1, "AS KS QS JS TS")], seconds=100))
    t.post("VEN-CSP-1", body("O-2", [seat(1, "AH KH QH JH TH")], seconds=90))
    level = t.level("NOG-CSP-1")
    before = level_row(level)
    # O-0's chip is inside the royal's prize; O-1's royal is shared with O-2.
    for round_id, code in [("O-0", "later_hit"), ("O-1", "shared_award")]:
        table = "NOG-CSP-1"
        response = t.void(table, round_id)
        assert (response.status_code, response.json()["error"]) == (409, code)
        assert level_row(level) == before
    assert t.void("VEN-CSP-1", "O-2").status_code == 200
    assert t.void("NOG-CSP-1", "O-1").status_code == 200
    assert t.void("NOG-CSP-1", "O-0").status_code == 200
    level.refresh_from_db()
    assert (level.current_mc, level.reserve_mc, level.wagered_cents, level.cycle) == (RESET_MC, 0, 0, 1)
    assert_conserved(level)


def test_a_round_body_over_1_mib_is_413_in_the_error_format_and_changes_nothing() -> None:
    t = tables_ready()
    document = orjson.dumps(body("BIG-1", [seat(1, NOTHING)]))
    padded = document + b" " * (1024 * 1024 + 1 - len(document))
    response = t.client.post(
        "/api/v1/tables/NOG-CSP-1/rounds",
        padded,
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {t.keys['NOG-CSP-1']}",
    )
    assert (response.status_code, response["Content-Type"], response.json()) == (
        413,
        "application/json",
        {"error": "body_too_large", "detail": "The body is larger than 1 MiB."},
    )
    exactly = t.client.post(
        "/api/v1/tables/NOG-CSP-1/rounds",
        padded[:-1],
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {t.keys['NOG-CSP-1']}",
    )
    assert exactly.status_code == 201
    assert TableRound.objects.count() == 1


def test_the_openapi_schema_describes_the_table_endpoints() -> None:
    schema = Client().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    rounds = schema["paths"]["/api/v1/tables/{code}/rounds"]["post"]
    assert rounds["operationId"] == "table_rounds_create"
    assert set(rounds["responses"]) == {"200", "201", "400", "401", "403", "404", "409", "413"}
    assert "/api/v1/tables/{code}/rounds/{round_id}/void" in schema["paths"]


def test_a_paid_prize_cannot_be_voided() -> None:
    t = tables_ready()
    t.post("NOG-CSP-1", body("PAID", [seat(1, "AS KS QS JS TS")]))
    users = [get_user_model().objects.create_user(username=name) for name in ("anna", "bruno")]
    part = PrizePart.objects.get()
    part_verify(part, users[0])
    part_verify(part, users[1])  # above the €1,200 threshold: two people
    PrizeShare.objects.update(closes_at=timezone.now() - timedelta(seconds=1))
    part_pay(part, users[0], Winner("Mario Rossi", "passport", "YA1234567", "IT"))
    level = t.level("NOG-CSP-1")
    before = level_row(level)
    with pytest.raises(RoundError) as error:
        round_void(t.table("NOG-CSP-1"), "PAID", reason="misdeal", user=users[1])
    assert (error.value.status, error.value.code) == (409, "hit_not_voidable")
    assert level_row(level) == before
    assert TableRound.objects.get(round_id="PAID").state == "recorded"


def test_a_suspended_progressive_takes_no_rounds_and_its_rate_change_closes_earlier_voids() -> None:
    t = tables_ready()
    t.post("VEN-CHE-1", body("B-1", [seat(1, "KC KD", 500)], community="2C 5S 7D TH 3S"))
    level = t.level("VEN-CHE-1")
    level_suspend(level, None, "new rate from the gaming board")
    suspended = level_row(level)
    refused = t.post("VEN-CHE-1", body("B-2", [seat(1, "KC KD", 500)], community="2C 5S 7D TH 3S"))
    assert (refused.status_code, refused.json()["error"]) == (409, "level_suspended")
    assert level_row(level) == suspended
    assert not TableRound.objects.filter(round_id="B-2").exists()
    level_parameters_change(level, None, {"rate": "0.13"}, "new rate from the gaming board")
    level_resume(level, None, "back in play")
    before = level_row(level)
    response = t.void("VEN-CHE-1", "B-1")
    assert (response.status_code, response.json()["error"]) == (409, "carry_restarted")
    assert level_row(level) == before
    assert_conserved(level)


def test_a_retired_progressive_takes_no_rounds_and_no_round_void() -> None:
    t = tables_ready()
    t.post("VEN-CHE-1", body("B-1", [seat(1, "KC KD", 500)], community="2C 5S 7D TH 3S"))
    level = t.level("VEN-CHE-1")
    # Retiring is another service's (its liability moves first); the engine only honours the state.
    type(level).objects.filter(pk=level.pk).update(state="retired")
    before = level_row(level)
    refused = t.post("VEN-CHE-1", body("R-1", [seat(1, "KC KD", 500)], community="2C 5S 7D TH 3S"))
    assert (refused.status_code, refused.json()["error"]) == (409, "level_retired")
    assert level_row(level) == before
    assert not TableRound.objects.filter(round_id="R-1").exists()
    # Its bets would come back out of a level whose money has moved away: refused, nothing moves.
    response = t.void("VEN-CHE-1", "B-1")
    assert (response.status_code, response.json()["error"]) == (409, "level_retired")
    assert level_row(level) == before
    assert TableRound.objects.get(round_id="B-1").state == "recorded"
