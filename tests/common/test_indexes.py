"""No index of the project's tables is one that another index already serves.

Django gives every foreign key an index of its own. Where the key's column leads a wider index or a unique
constraint (the events' (machine, seq), a ledger's (level, at)), PostgreSQL finds its rows by that one and
the key's own index is only written: one more index entry for every row inserted, in the busiest tables
(every event stored kept five). Such keys are declared ``db_index=False``.
"""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import connection

from tests.test_house import ROOT, house_apps

# Pairs (index, wider index) on one table where the first's columns lead the second's with the same
# operator classes, neither partial nor on expressions: the first serves no look-up the second cannot.
_SERVED_BY_ANOTHER = """
SELECT a.indrelid::regclass::text, a.indexrelid::regclass::text, b.indexrelid::regclass::text
FROM pg_index a
JOIN pg_index b ON b.indrelid = a.indrelid AND b.indexrelid <> a.indexrelid
WHERE a.indrelid::regclass::text = ANY(%s)
  AND NOT a.indisunique
  AND a.indpred IS NULL AND b.indpred IS NULL AND a.indexprs IS NULL AND b.indexprs IS NULL
  AND a.indnkeyatts <= b.indnkeyatts
  AND (string_to_array(b.indkey::text, ' '))[1:a.indnkeyatts] = string_to_array(a.indkey::text, ' ')
  AND (string_to_array(b.indclass::text, ' '))[1:a.indnkeyatts] = string_to_array(a.indclass::text, ' ')
  AND (SELECT amname FROM pg_am JOIN pg_class c ON c.relam = pg_am.oid WHERE c.oid = a.indexrelid)
    = (SELECT amname FROM pg_am JOIN pg_class c ON c.relam = pg_am.oid WHERE c.oid = b.indexrelid)
ORDER BY 1, 2, 3
"""


def _project_tables() -> list[str]:
    """The tables of the house's apps' models (the chain tests/test_house.py checks)."""
    ours = set(house_apps(ROOT))
    return sorted(model._meta.db_table for model in apps.get_models() if model._meta.app_label in ours)


@pytest.mark.postgres
@pytest.mark.django_db
def test_no_index_is_served_by_another_on_the_same_table():
    tables = _project_tables()
    assert {"slots_machineevent", "jackpots_ledgerentry", "floor_room"} <= set(tables)
    with connection.cursor() as cursor:
        cursor.execute(_SERVED_BY_ANOTHER, [tables])
        assert cursor.fetchall() == []


@pytest.mark.postgres
@pytest.mark.django_db
def test_an_index_served_by_another_is_found():
    with connection.cursor() as cursor:
        cursor.execute("CREATE INDEX test_served_event_machine ON slots_machineevent (machine_id)")
        cursor.execute(_SERVED_BY_ANOTHER, [["slots_machineevent"]])
        found = cursor.fetchall()
    assert found == [
        ("slots_machineevent", "test_served_event_machine", "event_machine_at"),
        ("slots_machineevent", "test_served_event_machine", "event_unique_machine_seq"),
    ]
