from __future__ import annotations

from decimal import Decimal

from jackpots.models import ContributionBatch, LedgerEntry
from jackpots.services import contributions_apply
from slots.models import MachineEvent
from tests.jackpots.factories import GameEventFactory


def test_batch_applies_eligible_wagers_once(linked):
    _, machines, level = linked
    for i in range(10):
        GameEventFactory(machine=machines[i % 4], wager_cents=333)
    assert contributions_apply(batch_size=4) == 10
    assert contributions_apply() == 0
    level.refresh_from_db()
    # 3330 cents x 1% = 33.30 cents = 33,300 mc; reserve 0.2% = 6,660 mc
    assert level.current_mc == 100_000_000 + 33_300
    assert level.reserve_mc == 6_660
    assert level.wagered_cents == 3330
    assert MachineEvent.objects.filter(pending=True).count() == 0
    rows = LedgerEntry.objects.filter(level=level, kind=LedgerEntry.Kind.CONTRIBUTION)
    assert [r.event_count for r in rows] == [4, 4, 2]
    assert Decimal(rows[0].rate) == Decimal("0.01")


def test_each_batch_records_its_event_count_and_id_range(linked):
    _, machines, _level = linked
    for i in range(10):
        GameEventFactory(machine=machines[i % 4], wager_cents=100 + i)
    assert contributions_apply(batch_size=4) == 10
    recorded = list(
        ContributionBatch.objects.order_by("id").values_list(
            "applied_at", "event_count", "first_event_id", "last_event_id"
        )
    )
    expected = []
    for applied_at, *_ in recorded:
        ids = list(MachineEvent.objects.filter(applied_at=applied_at).values_list("id", flat=True))
        expected.append((applied_at, len(ids), min(ids), max(ids)))
    assert [row[1] for row in recorded] == [4, 4, 2]
    assert recorded == expected
