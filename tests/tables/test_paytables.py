"""Pay tables as data: changes staged until the level's next reset, logged, and edited in the admin."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client

from floor.roles import AUDITOR, FLOOR_MANAGER
from jackpots.services import level_suspend
from jackpots.services.errors import EngineError
from tables.models import PayTable, PayTableChange
from tables.seed import tables_seed
from tables.services.paytables import pay_table_change
from tests.tables.factories import body, seat, tables_ready

pytestmark = pytest.mark.django_db
NOTHING = "2C 5D 7H 9S JC"


def staff(username: str, role: str):
    user = get_user_model().objects.create_user(username=username, password="not-used", is_staff=True)
    user.groups.add(Group.objects.get(name=role))
    return user


def lines_of(pay_table: PayTable) -> list[tuple]:
    return [(line.hand, line.kind, line.percent, line.fixed_cents) for line in pay_table.lines.order_by("id")]


def test_seeded_pay_tables_and_tables_are_as_documented_and_the_seed_is_idempotent() -> None:
    tables_seed()
    tables_seed()
    csp = PayTable.objects.get(game="caribbean_stud")
    assert lines_of(csp) == [
        ("royal_flush", "percent", Decimal("100.0000"), None),
        ("straight_flush", "percent", Decimal("10.0000"), None),
        ("four_of_a_kind", "fixed", None, 50_000),
        ("full_house", "fixed", None, 10_000),
        ("flush", "fixed", None, 5_000),
    ]
    jumbo = PayTable.objects.get(game="casino_holdem")
    assert lines_of(jumbo) == [
        ("straight_flush_7", "percent", Decimal("100.0000"), None),
        ("straight_flush_6", "fixed", None, 500_000),
        ("straight_flush_5", "fixed", None, 25_000),
        ("four_of_a_kind", "fixed", None, 5_000),
        ("full_house", "fixed", None, 500),
        ("flush", "fixed", None, 400),
        ("straight", "fixed", None, 200),
    ]
    assert (jumbo.level.reset_mc, jumbo.level.rate, jumbo.level.reserve_rate) == (
        0,
        Decimal("0.12"),
        Decimal("0.03"),
    )
    assert sorted(csp.progressive.tables.values_list("code", flat=True)) == [
        "NOG-CSP-1",
        "NOG-CSP-2",
        "VEN-CSP-1",
    ]
    assert sorted(jumbo.progressive.tables.values_list("code", flat=True)) == ["NOG-CHE-1", "VEN-CHE-1"]
    assert PayTable.objects.count() == 2


def test_a_change_is_staged_until_the_next_win_then_applies_and_is_logged() -> None:
    t = tables_ready()
    manager = staff("manager", FLOOR_MANAGER)
    pay_table = t.table("NOG-CSP-1").progressive.pay_table
    new = [
        {"hand": "royal_flush", "kind": "percent", "percent": "100"},
        {"hand": "four_of_a_kind", "kind": "fixed", "fixed_cents": 75_000},
    ]
    change = pay_table_change(pay_table, manager, new, "Promotion: Four of a Kind pays €750")
    assert change.state == PayTableChange.State.STAGED
    # Still the old table: Four of a Kind pays €500.
    quads = t.post("NOG-CSP-1", body("P-1", [seat(1, "9C 9D 9H 9S 2D")]))
    assert quads.json()["seats"][0]["award"]["amount"] == 50_000
    t.post("NOG-CSP-1", body("P-2", [seat(1, "AS KS QS JS TS")], seconds=10))
    after = t.post("NOG-CSP-1", body("P-3", [seat(1, "8C 8D 8H 8S 2D")], seconds=200))
    assert after.json()["seats"][0]["award"]["amount"] == 75_000
    change.refresh_from_db()
    assert (change.state, change.applied_cycle, change.user, change.reason) == (
        "applied",
        2,
        manager,
        "Promotion: Four of a Kind pays €750",
    )
    assert change.old[2] == {
        "hand": "four_of_a_kind",
        "kind": "fixed",
        "percent": None,
        "fixed_cents": 50_000,
    }
    assert len(lines_of(pay_table)) == 2


def test_bad_changes_are_refused() -> None:
    tables_seed()
    pay_table = PayTable.objects.get(game="caribbean_stud")
    cases = [
        ([{"hand": "royal_flush", "kind": "percent", "percent": "101"}], "a percentage must be above 0"),
        ([{"hand": "five_aces", "kind": "fixed", "fixed_cents": 1}], "'five_aces' is not a hand"),
        ([{"hand": "flush", "kind": "fixed", "fixed_cents": 0}], "a fixed amount is a positive number"),
        ([{"hand": "flush", "kind": "fixed", "fixed_cents": 1}] * 2, "flush appears twice"),
    ]
    for lines, message in cases:
        with pytest.raises(EngineError) as error:
            pay_table_change(pay_table, None, lines, "why")
        assert message in error.value.message
    with pytest.raises(EngineError, match="needs a reason"):
        pay_table_change(pay_table, None, [], " ")
    assert PayTableChange.objects.count() == 0


def test_a_suspended_level_takes_the_change_at_once_through_the_admin() -> None:
    tables_seed()
    pay_table = PayTable.objects.get(game="caribbean_stud")
    level_suspend(pay_table.level, None, "new pay table")
    client = Client()
    client.force_login(staff("manager", FLOOR_MANAGER))
    url = f"/admin/tables/paytable/{pay_table.pk}/stage/"
    assert client.get(url).status_code == 200
    form = {
        "reason": "New table from the gaming board",
        "kind_royal_flush": "percent",
        "value_royal_flush": "100",
        "kind_flush": "fixed",
        "value_flush": "60.00",
    }
    response = client.post(url, form)
    assert response.status_code == 302
    assert lines_of(pay_table) == [
        ("royal_flush", "percent", Decimal("100.0000"), None),
        ("flush", "fixed", None, 6_000),
    ]
    assert PayTableChange.objects.get().state == "applied"
    auditor = Client()
    auditor.force_login(staff("auditor", AUDITOR))
    assert auditor.post(url, form).status_code == 403
    assert auditor.get(f"/admin/tables/paytable/{pay_table.pk}/change/").status_code == 200
