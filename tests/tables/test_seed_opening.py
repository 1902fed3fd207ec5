"""Jumbo 7 opens at the pool the casino documents (€9,496.86 on its Casino Hold'em rules page), not at
€0,00; its reset value stays nought, so after a hit it restarts from what the bets put aside."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import Client

from jackpots.models import LedgerEntry, Level
from tables.models import Table
from tables.seed import JUMBO_7_OPENING_MC
from tables.services import table_key_issue

pytestmark = pytest.mark.django_db


def test_jumbo_7_opens_at_the_documented_pool_and_a_second_seed_changes_nothing() -> None:
    call_command("seed_venezia", "--machines-per-room", "0")
    call_command("seed_venezia", "--machines-per-room", "0")

    level = Level.objects.get(progressive__name="Jumbo 7 Jackpot")
    assert JUMBO_7_OPENING_MC == 949_686_000
    assert (level.current_mc, level.reset_mc, level.reserve_mc) == (949_686_000, 0, 0)
    seed = LedgerEntry.objects.get(level=level)
    assert (seed.kind, seed.current_delta_mc, seed.reference) == (
        LedgerEntry.Kind.SEED,
        949_686_000,
        "opening",
    )
    # What a table's display shows for it: €9,496.86.
    table = Table.objects.get(code="VEN-CHE-1")
    key = table_key_issue(table)[1]
    display = Client().get("/api/v1/tables/VEN-CHE-1", HTTP_AUTHORIZATION=f"Bearer {key}")
    assert (display.status_code, display.json()["amount"], display.json()["amount_eur"]) == (
        200,
        949_686,
        "9496.86",
    )
    # Caribbean Stud keeps opening at its reset value.
    caribbean = Level.objects.get(progressive__name="Caribbean Stud Progressive")
    assert (caribbean.current_mc, caribbean.reset_mc) == (1_000_000_000, 1_000_000_000)
