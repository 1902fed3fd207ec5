"""The Caribbean Stud declaration (docs/tables.md "Declarations"): a Royal or Straight Flush suspends every
table of its progressive until a supervisor releases it, its prize is paid or its window lapses; a round
played after it is refused ``level_pending``, one played before it and posted meanwhile shares the prize."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from floor.models import SignificantEvent
from jackpots.models import Hit
from jackpots.services.errors import EngineError
from jackpots.services.winners import Winner
from tables.models import PrizePart, PrizeShare, TableDeclaration, TableRound
from tables.services import round_record
from tables.services.declarations import declaration_release, declarations_lapse
from tables.services.parts import part_pay, part_verify
from tests.tables.factories import T0, assert_conserved, at, body, seat, tables_ready

pytestmark = pytest.mark.django_db

RESET_MC = 1_000_000_000
NOTHING = "2C 5D 7H 9S JC"
ROYAL = "AS KS QS JS TS"
ROYAL_2 = "AD KD QD JD TD"
DECLARED = body("N-1", [seat(1, ROYAL), seat(2, NOTHING, bet=0)], seconds=0)

REFUSAL = (
    "A Royal Flush is being declared at table NOG-CSP-1 (seat 1): the tables of this progressive are "
    "suspended until a supervisor releases it (at the latest 2036-11-21T18:01:00+00:00); post round "
    "again then."
)


def awards(answer: dict) -> dict[int, int]:
    return {s["seat"]: s["award"]["amount"] for s in answer["seats"]}


def supervisor():
    user, _created = get_user_model().objects.get_or_create(username="supervisor", first_name="Sara")
    return user


def declaration_of(code: str = "NOG-CSP-1") -> TableDeclaration:
    return TableDeclaration.objects.get(table__code=code)


def shown(state: str, outcome: str | None, released_at: str | None = None) -> dict:
    declaration = TableDeclaration.objects.get()
    return {
        "id": declaration.id,
        "jackpot": declaration.progressive_id,
        "level": declaration.level_id,
        "state": state,
        "outcome": outcome,
        "table": "NOG-CSP-1",
        "seat": 1,
        "hand": "royal_flush",
        "opened_at": at(0),
        "expires_at": at(60),
        "released_at": released_at,
    }


def test_a_pending_royal_refuses_a_new_round_and_shares_with_one_already_played() -> None:
    t = tables_ready()
    first = t.post("NOG-CSP-1", DECLARED)
    assert first.status_code == 201
    assert awards(first.json()) == {1: 1_000_035, 2: 0}
    assert (first.json()["pending"], first.json()["declaration"]) == (True, shown("pending", None))
    level = t.level("NOG-CSP-1")
    before = (level.current_mc, level.reserve_mc, TableRound.objects.count())
    # Played 1 s after the declared royal at another venue: suspended, refused, nothing written.
    refused = t.post("VEN-CSP-1", body("V-2", [seat(1, NOTHING)], seconds=1))
    assert (refused.status_code, refused.json()) == (409, {"error": "level_pending", "detail": REFUSAL})
    level.refresh_from_db()
    assert (level.current_mc, level.reserve_mc, TableRound.objects.count()) == before
    # Played 5 s before it, posted now: a simultaneous win, the same prize divided seat by seat.
    joined = t.post("VEN-CSP-1", body("V-1", [seat(3, ROYAL_2), seat(4, NOTHING)], seconds=-5))
    assert joined.status_code == 201
    assert awards(joined.json()) == {3: 500_017, 4: 0}
    assert joined.json()["pending"] is True
    assert TableRound.objects.get(round_id="N-1").seat_rows.get(seat=1).award_cents == 500_018
    assert sorted(PrizePart.objects.values_list("amount_cents", flat=True)) == [500_017, 500_018]
    assert Hit.objects.filter(level=level).count() == 1
    # Every table of the link says so, in its display answer too.
    display = t.client.get("/api/v1/tables/NOG-CSP-2").json()
    assert (display["pending"], display["declaration"]) == (True, shown("pending", None))
    event = SignificantEvent.objects.get(kind=SignificantEvent.Kind.DECLARATION)
    assert (event.subject, event.venue_id, event.level_id) == (
        "NOG-CSP-1 seat 1: Royal Flush",
        None,
        level.id,
    )
    assert_conserved(level)


def test_a_straight_flush_is_declared_and_a_seat_without_a_jackpot_bet_is_not() -> None:
    t = tables_ready()
    assert t.post("NOG-CSP-1", body("A-1", [seat(1, ROYAL, bet=0)])).json()["pending"] is False
    assert not TableDeclaration.objects.exists()
    answer = t.post("NOG-CSP-1", body("A-2", [seat(1, NOTHING), seat(6, "TC 9C 8C 7C 6C")], seconds=1)).json()
    assert (answer["pending"], answer["declaration"]["hand"], answer["declaration"]["seat"]) == (
        True,
        "straight_flush",
        6,
    )


def test_a_supervisors_release_reopens_play_and_makes_the_prize_final() -> None:
    t = tables_ready()
    t.post("NOG-CSP-1", DECLARED)
    late = body("V-2", [seat(1, ROYAL_2)], seconds=1)
    assert t.post("VEN-CSP-1", late).status_code == 409
    with pytest.raises(EngineError) as error:
        declaration_release(declaration_of(), supervisor(), "  ")
    assert error.value.code == "reason_required"
    released = declaration_release(declaration_of(), supervisor(), "Hand seen by the pit boss")
    assert (released.state, released.released_by.username) == ("released", "supervisor")
    assert released.release_reason == "Hand seen by the pit boss"
    # The prize is final from the release: no later round divides it; the royal played after wins anew.
    share = PrizeShare.objects.get()
    assert share.closes_at == released.released_at
    again = t.post("VEN-CSP-1", late)
    assert again.status_code == 201
    assert awards(again.json()) == {1: (RESET_MC + 5_000 + 35_000) // 1000}
    assert Hit.objects.count() == 2
    retry = t.post("NOG-CSP-1", DECLARED).json()
    assert retry["seats"][0]["award"]["final_at"] == released.released_at.isoformat()
    assert retry["seats"][0]["award"]["provisional"] is False
    # The released declaration is over; the new royal (Ven) opened its own.
    assert retry["declaration"]["table"] == "VEN-CSP-1"
    event = SignificantEvent.objects.get(kind=SignificantEvent.Kind.DECLARATION_RELEASED)
    assert (event.user.username, event.detail) == ("supervisor", "Released: Hand seen by the pit boss")
    with pytest.raises(EngineError) as twice:
        declaration_release(declaration_of(), supervisor(), "again")
    assert twice.value.code == "declaration_not_pending"
    assert_conserved(t.level("NOG-CSP-1"))


def test_paying_every_part_releases_the_declaration() -> None:
    t = tables_ready()
    t.post("NOG-CSP-1", DECLARED)
    t.post("VEN-CSP-1", body("V-1", [seat(3, ROYAL_2)], seconds=-5))
    users = [get_user_model().objects.create_user(username=n) for n in ("anna", "bruno")]
    first, second = PrizePart.objects.order_by("id")
    for part in (first, second):
        part_verify(part, users[0])
        part_verify(part, users[1])
    winner = Winner("Mario Rossi", "id_card", "CA12345XY", "IT")
    part_pay(first, users[1], winner)
    # One part paid: the division is fixed (no later round joins), the tables still wait.
    assert declaration_of().state == "pending"
    assert PrizeShare.objects.get().closes_at <= timezone.now()
    assert t.post("NOG-CSP-2", body("N2-1", [seat(1, NOTHING)], seconds=2)).status_code == 409
    part_pay(second, users[1], winner)
    declaration = declaration_of()
    assert (declaration.state, declaration.released_by.username) == ("paid", "bruno")
    assert t.post("NOG-CSP-2", body("N2-1", [seat(1, NOTHING)], seconds=2)).status_code == 201
    assert Hit.objects.get().state == Hit.State.PAID


def test_without_a_release_the_window_lapses_the_declaration() -> None:
    t = tables_ready()
    t.post("NOG-CSP-1", DECLARED)
    level = t.level("NOG-CSP-1")
    # Posted once the window (60 s) is over by the server's clock: played after the royal, yet taken.
    answer, created = round_record(
        t.table("VEN-CSP-1"),
        body("V-2", [seat(1, NOTHING)], seconds=10),
        received_at=T0 + timedelta(seconds=61),
    )
    assert (created, answer["pending"], answer["declaration"]) == (True, False, None)
    declaration = declaration_of()
    assert (declaration.state, declaration.released_at, declaration.released_by) == (
        "lapsed",
        T0 + timedelta(seconds=60),
        None,
    )
    event = SignificantEvent.objects.get(kind=SignificantEvent.Kind.DECLARATION_RELEASED)
    assert event.detail == "Lapsed (window over): window over"
    assert_conserved(level)


def test_the_beat_records_a_lapse_with_no_round_posted() -> None:
    t = tables_ready()
    t.post("NOG-CSP-1", DECLARED)
    assert declarations_lapse(T0 + timedelta(seconds=30)) == 0
    assert declarations_lapse(T0 + timedelta(seconds=61)) == 1
    assert declaration_of().state == "lapsed"
    assert declarations_lapse(T0 + timedelta(seconds=62)) == 0


def test_replays_of_the_declared_and_the_joining_round_change_nothing() -> None:
    t = tables_ready()
    t.post("NOG-CSP-1", DECLARED)
    joining = body("V-1", [seat(3, ROYAL_2), seat(4, NOTHING)], seconds=-5)
    t.post("VEN-CSP-1", joining)
    for _ in range(2):
        # The declared round's own retry is no new round: answered, not refused.
        retry = t.post("NOG-CSP-1", DECLARED)
        assert (retry.status_code, awards(retry.json())) == (200, {1: 500_018, 2: 0})
        again = t.post("VEN-CSP-1", joining)
        assert (again.status_code, awards(again.json())) == (200, {3: 500_017, 4: 0})
    assert TableDeclaration.objects.count() == 1
    assert PrizePart.objects.count() == 2
    assert sorted(PrizePart.objects.values_list("amount_cents", flat=True)) == [500_017, 500_018]
    assert SignificantEvent.objects.filter(kind=SignificantEvent.Kind.DECLARATION).count() == 1
    assert_conserved(t.level("NOG-CSP-1"))


def test_jumbo_7_shares_per_winning_round_as_before_and_declares_nothing() -> None:
    t = tables_ready()
    community = "2H 3H 4H 5H 6H"
    first = t.post(
        "VEN-CHE-1", body("J-1", [seat(1, "7H 8H", 100), seat(2, "KC KD", 300)], community=community)
    )
    # 5 s later, another 7-card straight flush: still inside the window, the same prize divided again.
    second = t.post("VEN-CHE-1", body("J-2", [seat(1, "7H 8H", 200)], community=community, seconds=5))
    assert (first.status_code, second.status_code) == (201, 201)
    assert not TableDeclaration.objects.exists()
    assert (first.json()["pending"], second.json()["pending"]) == (False, False)
    share = PrizeShare.objects.get()
    parts = {(p.seat.round.round_id, p.seat.seat): p.seat.share_cents for p in PrizePart.objects.all()}
    # The meter's 48 cents taken once, divided by each seat's bet (100, 300, 200 of 600).
    assert share.prize_cents == 48
    assert parts == {("J-1", 1): 8, ("J-1", 2): 24, ("J-2", 1): 16}
    assert Hit.objects.count() == 1
    assert_conserved(t.level("VEN-CHE-1"))
