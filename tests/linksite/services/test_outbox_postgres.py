"""On the real PostgreSQL: rounds of one linked progressive recorded at the same moment at three tables get
their entries numbered without a gap, each round's contribution before its claim."""

from __future__ import annotations

import pytest

from linksite.models import LinkMembership, OutboxEntry
from tables.models import Table
from tables.services import round_record
from tests.linksite.factories import COMMUNITY, linked_site
from tests.tables.factories import body, seat
from tests.tables.test_postgres import _at_once

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_three_rounds_at_once_are_numbered_without_a_gap() -> None:
    linked_site()
    codes = ["VEN-CHE-1", "NOG-CHE-1", "LUG-CHE-1"]
    tables = {
        code: Table.objects.select_related("progressive__pay_table", "venue").get(code=code) for code in codes
    }
    rounds = {
        "VEN-CHE-1": body("V-1", [seat(1, "3H 5H", 500), seat(2, "KC KD", 700)], COMMUNITY, 1),
        "NOG-CHE-1": body("N-1", [seat(3, "KC KD", 300)], "2C 5S 7D TH 3S", 2),
        "LUG-CHE-1": body("L-1", [seat(4, "3H 5H", 1_000)], COMMUNITY, 3),
    }
    calls = [(lambda code=code: round_record(tables[code], rounds[code])) for code in codes]
    results = _at_once(calls)
    assert all(isinstance(r, tuple) and r[1] for r in results), results
    entries = list(OutboxEntry.objects.order_by("seq").values_list("seq", "round_ref", "kind"))
    assert [seq for seq, _, _ in entries] == [1, 2, 3, 4, 5]
    assert sorted((ref, kind) for _, ref, kind in entries) == [
        ("LUG-CHE-1:L-1", "claim"),
        ("LUG-CHE-1:L-1", "contribution"),
        ("NOG-CHE-1:N-1", "contribution"),
        ("VEN-CHE-1:V-1", "claim"),
        ("VEN-CHE-1:V-1", "contribution"),
    ]
    # Each round's entries are consecutive, its contribution first.
    by_round: dict[str, list[tuple[int, str]]] = {}
    for seq, ref, kind in entries:
        by_round.setdefault(ref, []).append((seq, kind))
    for numbered in by_round.values():
        assert [kind for _, kind in numbered] == ["contribution", "claim"][: len(numbered)]
        assert [seq for seq, _ in numbered] == list(range(numbered[0][0], numbered[0][0] + len(numbered)))
    assert LinkMembership.objects.get().next_seq == 6
