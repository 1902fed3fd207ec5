"""The table games in the admin: keys issued once, rates appended, rounds read-only."""

from __future__ import annotations

import re

import pytest

from floor.roles import AUDITOR, FLOOR_MANAGER
from jackpots.models import ExchangeRate
from tables.models import Table, TableKey
from tests.jackpots.helpers import logged_in
from tests.tables.factories import body, seat, tables_ready

pytestmark = pytest.mark.django_db


def test_a_floor_manager_issues_a_table_key_shown_once_that_opens_the_table() -> None:
    t = tables_ready()
    client, manager = logged_in(FLOOR_MANAGER)
    table = Table.objects.get(code="VEN-CSP-1")
    response = client.post(
        "/admin/tables/table/", {"action": "issue_table_key", "_selected_action": [table.pk]}
    )
    assert response.status_code == 200
    key = re.search(r'class="issued-key">([^<]+)<', response.content.decode()).group(1)
    assert response["Cache-Control"].startswith("no-store, private")
    assert TableKey.objects.filter(table=table, created_by=manager).count() == 1
    assert t.post("VEN-CSP-1", body("ADM-1", [seat(1, "2C 5D 7H 9S JC")]), key=key).status_code == 201


def test_rates_are_appended_with_who_and_rounds_cannot_be_edited() -> None:
    tables_ready()
    client, manager = logged_in(FLOOR_MANAGER)
    response = client.post(
        "/admin/jackpots/exchangerate/add/",
        {
            "base": "EUR",
            "quote": "CHF",
            "rate": "0.93710000",
            "valid_from_0": "2026-11-21",
            "valid_from_1": "10:00:00",
            "source": "BCE",
        },
    )
    assert response.status_code == 302
    rate = ExchangeRate.objects.get()
    assert (rate.created_by, str(rate.rate)) == (manager, "0.93710000")
    assert client.get(f"/admin/jackpots/exchangerate/{rate.pk}/change/").status_code == 200
    assert client.post(f"/admin/jackpots/exchangerate/{rate.pk}/delete/", {"post": "yes"}).status_code == 403
    auditor, _ = logged_in(AUDITOR)
    assert auditor.get("/admin/tables/tableround/").status_code == 200
    keys = TableKey.objects.count()
    auditor.post("/admin/tables/table/", {"action": "issue_table_key", "_selected_action": [1]})
    assert TableKey.objects.count() == keys
