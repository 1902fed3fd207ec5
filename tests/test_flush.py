"""The transactional tests' flush on PostgreSQL (tests/conftest.py): a DELETE of every table, which
leaves every table empty, rows referencing each other too, as the TRUNCATE it replaces did."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection

from tests.workspace.helpers import hit_on

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def row_counts() -> dict[str, int]:
    counts = {}
    with connection.cursor() as cursor:
        for table in connection.introspection.django_table_names(only_existing=True, include_views=False):
            cursor.execute(f"SELECT count(*) FROM {connection.ops.quote_name(table)}")
            counts[table] = cursor.fetchone()[0]
    return {table: count for table, count in counts.items() if count}


def test_the_flush_is_a_delete_of_each_table() -> None:
    assert connection.ops.sql_flush(no_style(), ["slots_slotmachine", "jackpots_hit"]) == [
        "SET CONSTRAINTS ALL DEFERRED;",
        'DELETE FROM "slots_slotmachine";',
        'DELETE FROM "jackpots_hit";',
    ]
    # Sequences restarted: only TRUNCATE does it.
    assert connection.ops.sql_flush(no_style(), ["jackpots_hit"], reset_sequences=True) == [
        'TRUNCATE "jackpots_hit" RESTART IDENTITY;'
    ]


def test_the_flush_empties_every_table_rows_that_reference_each_other_too() -> None:
    hit_on("NOG-0104", 50_000_000)
    filled = row_counts()
    assert {"slots_slotmachine", "jackpots_level", "jackpots_hit", "floor_venue"} <= set(filled)

    call_command("flush", verbosity=0, interactive=False, inhibit_post_migrate=True)

    assert row_counts() == {}
