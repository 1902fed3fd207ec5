"""Each machine's part of the contributions: exact allocation of the ledger rows, written with each batch."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from importlib import import_module

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jackpots.audit import jackpots_audit
from jackpots.models import LedgerEntry, MachineContribution, ProgressiveMachine
from jackpots.services import contributions_apply, core, hit_void, level_parameters_change
from jackpots.services.levels import level_create
from jackpots.services.machine_split import largest_remainder
from slots.models import MachineEvent
from tests.jackpots.factories import GameEventFactory, JackpotEventFactory
from tests.jackpots.helpers import progressive_with_machines

SPLIT_FIELDS = ("wagered_cents", "current_mc", "reserve_mc", "overflow_mc", "contributed_mc")
ENTRY_FIELDS = (
    "wagered_cents",
    "current_delta_mc",
    "reserve_delta_mc",
    "overflow_delta_mc",
    "contributed_mc",
)


def _parts(entry: LedgerEntry) -> list[tuple]:
    return list(
        MachineContribution.objects.filter(entry=entry)
        .order_by("machine_id")
        .values_list("machine_id", *SPLIT_FIELDS)
    )


def test_largest_remainder_gives_the_rest_to_the_largest_remainders_ties_to_the_lower_id():
    # 10 x 1/7 = 1 r3, 10 x 2/7 = 2 r6, 10 x 4/7 = 5 r5: the 2 left go to r6 and r5.
    assert largest_remainder(10, [(1, 1), (2, 2), (3, 4)]) == [1, 3, 6]
    # Equal remainders: the lower machine ids first, whatever the order given.
    assert largest_remainder(5, [(3, 1), (1, 1), (2, 1)]) == [1, 2, 2]
    assert largest_remainder(-5, [(3, 1), (1, 1), (2, 1)]) == [-1, -2, -2]
    assert largest_remainder(0, [(1, 0), (2, 0)]) == [0, 0]
    with pytest.raises(ValueError):
        largest_remainder(3, [(1, 0)])


@given(
    total=st.integers(min_value=-(10**12), max_value=10**12),
    weights=st.lists(st.integers(min_value=0, max_value=10**7), min_size=1, max_size=30).filter(any),
)
def test_largest_remainder_conserves_and_stays_within_one_of_the_exact_share(total, weights):
    keyed = list(enumerate(weights))
    parts = largest_remainder(total, keyed)
    assert sum(parts) == total
    whole = sum(weights)
    for part, weight in zip(parts, weights, strict=True):
        exact = Decimal(total) * weight / whole
        assert abs(Decimal(part) - exact) < 1


def test_a_batch_splits_its_ledger_row_over_the_machines(db):
    progressive, machines = progressive_with_machines(3)
    params = core.Params(reset_mc=1_000_000, rate=Decimal("0.00333"), reserve_rate=Decimal("0.0007"))
    level = level_create(progressive, name="Grand", position=1, params=params)
    GameEventFactory(machine=machines[0], wager_cents=50)
    GameEventFactory(machine=machines[1], wager_cents=7)
    GameEventFactory(machine=machines[0], wager_cents=50)
    assert contributions_apply() == 3
    entry = LedgerEntry.objects.get(level=level, kind=LedgerEntry.Kind.CONTRIBUTION)
    # 107 cents: floor(107 x 3.33) = 356 mc to the amount, floor(107 x 0.7) = 74 mc to the reserve.
    assert (entry.current_delta_mc, entry.reserve_delta_mc) == (356, 74)
    # Amount: 356 x 100/107 = 332 r76, 356 x 7/107 = 23 r31, the 1 left to the larger remainder.
    # Reserve: 74 x 100/107 = 69 r17, 74 x 7/107 = 4 r90, the 1 left to machine 1 (r90).
    assert _parts(entry) == [
        (machines[0].id, 100, 333, 69, 0, 402),
        (machines[1].id, 7, 23, 5, 0, 28),
    ]
    assert jackpots_audit()[1] == []


def test_above_the_limit_the_overflow_is_split_too(db):
    progressive, machines = progressive_with_machines(2)
    params = core.Params(reset_mc=1_000, rate=Decimal("0.01"), limit_mc=1_500)
    level = level_create(progressive, name="Minor", position=1, params=params)
    GameEventFactory(machine=machines[0], wager_cents=30)
    GameEventFactory(machine=machines[1], wager_cents=70)
    contributions_apply()
    entry = LedgerEntry.objects.get(level=level, kind=LedgerEntry.Kind.CONTRIBUTION)
    # 1,000 mc added: 500 fill the amount to its limit, 500 overflow.
    assert (entry.current_delta_mc, entry.overflow_delta_mc) == (500, 500)
    assert _parts(entry) == [
        (machines[0].id, 30, 150, 0, 150, 300),
        (machines[1].id, 70, 350, 0, 350, 700),
    ]


def test_a_void_splits_its_correction_of_contributions_over_the_wagers_since_the_hit(db):
    progressive, machines = progressive_with_machines(3)
    level = level_create(
        progressive, name="Grand", position=1, params=core.Params(reset_mc=0, rate=Decimal("0.01"))
    )
    user = get_user_model().objects.create_user("manager")
    level_parameters_change(level, user, {"rate": "0.02"}, "summer promotion")
    GameEventFactory(machine=machines[0], wager_cents=1_000)
    JackpotEventFactory(machine=machines[0], level_id=level.id, amount_cents=10)
    contributions_apply()
    # The reset applied the staged 2%; these wagers feed the new cycle at 2%.
    GameEventFactory(machine=machines[1], wager_cents=101)
    GameEventFactory(machine=machines[2], wager_cents=202)
    contributions_apply()
    hit = level.hit_records.get()
    hit_void(hit, user, "reel malfunction")
    void = LedgerEntry.objects.get(level=level, kind=LedgerEntry.Kind.VOID)
    # As if the hit never happened, at 1%: 303 cents add 3,030 mc instead of 6,060 mc.
    assert void.contributed_mc == -3_030
    assert _parts(void) == [(machines[1].id, 0, 0, 0, 0, -1_010), (machines[2].id, 0, 0, 0, 0, -2_020)]
    assert jackpots_audit()[1] == []


def test_the_audit_finds_a_machine_row_that_disagrees_with_the_ledger(linked):
    _, machines, level = linked
    GameEventFactory(machine=machines[0], wager_cents=100)
    GameEventFactory(machine=machines[1], wager_cents=300)
    contributions_apply()
    assert jackpots_audit()[1] == []
    # Moved between machines: the row still sums to the ledger, but is not the allocation.
    MachineContribution.objects.filter(machine=machines[0]).update(current_mc=1_001)
    MachineContribution.objects.filter(machine=machines[1]).update(current_mc=2_999)
    found = [str(d) for d in jackpots_audit()[1]]
    assert len(found) == 1
    assert found[0].startswith(f"level {level.id}: ledger row ")
    assert "[400, 4000, 800, 0, 4800]" in found[0]


events = st.lists(
    st.tuples(
        st.sampled_from(["game", "game", "game", "jackpot"]),
        st.integers(0, 3),
        st.integers(min_value=0, max_value=3_000),
        st.booleans(),
    ),
    min_size=1,
    max_size=40,
)


@pytest.mark.django_db
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rates=st.lists(st.decimals(min_value=0, max_value=Decimal("0.2"), places=8), min_size=2, max_size=2),
    reserve_rate=st.decimals(min_value=0, max_value=Decimal("0.05"), places=8),
    limit=st.one_of(st.none(), st.integers(min_value=1, max_value=200_000)),
    stream=events,
    batch_size=st.integers(min_value=1, max_value=12),
)
def test_machine_rows_sum_to_every_ledger_row_exactly(rates, reserve_rate, limit, stream, batch_size):
    progressive, machines = progressive_with_machines(4)
    ProgressiveMachine.objects.filter(machine=machines[3]).update(enabled=False)
    levels = [
        level_create(
            progressive,
            name=f"L{i}",
            position=i,
            params=core.Params(
                reset_mc=1_000,
                rate=rate,
                reserve_rate=reserve_rate,
                limit_mc=None if limit is None else 1_000 + limit,
                min_wager_cents=100 * i,
                max_bet_only=i == 1,
            ),
        )
        for i, rate in enumerate(rates)
    ]
    for kind, index, wager, max_bet in stream:
        if kind == "game":
            GameEventFactory(machine=machines[index], wager_cents=wager, is_max_bet=max_bet)
        else:
            JackpotEventFactory(machine=machines[index], level_id=levels[index % 2].id, amount_cents=1)
    assert contributions_apply(batch_size=batch_size) == len(stream)
    # Eligible wagers per (ledger row, machine) recounted from the raw events.
    for level_index, level in enumerate(levels):
        rows = LedgerEntry.objects.filter(level=level, kind=LedgerEntry.Kind.CONTRIBUTION)
        for entry in rows:
            expected: dict[int, int] = defaultdict(int)
            # Events are created in the order of play, so a row's events are an id range here.
            for event in MachineEvent.objects.filter(
                type=MachineEvent.Type.GAME, id__gte=entry.first_event_id, id__lte=entry.last_event_id
            ):
                eligible = event.wager_cents >= 100 * level_index and (level_index == 0 or event.is_max_bet)
                if eligible and event.machine_id != machines[3].id:
                    expected[event.machine_id] += event.wager_cents
            parts = _parts(entry)
            assert {p[0]: p[1] for p in parts} == dict(expected)
            for i, name in enumerate(ENTRY_FIELDS, start=1):
                assert sum(p[i] for p in parts) == getattr(entry, name)
            assert all(p[5] == p[2] + p[3] + p[4] for p in parts)
    assert not MachineContribution.objects.filter(machine=machines[3]).exists()
    assert jackpots_audit()[1] == []


def test_rows_written_before_the_split_existed_are_split_by_the_backfill(db):
    progressive, machines = progressive_with_machines(3)
    level = level_create(
        progressive, name="Grand", position=1, params=core.Params(reset_mc=0, rate=Decimal("0.00333"))
    )
    ProgressiveMachine.objects.filter(machine=machines[2]).update(enabled=False)
    user = get_user_model().objects.create_user("manager")
    for index, cents in [(0, 50), (1, 77), (2, 500), (0, 50)]:
        GameEventFactory(machine=machines[index], wager_cents=cents)
    JackpotEventFactory(machine=machines[0], level_id=level.id, amount_cents=1)
    GameEventFactory(machine=machines[1], wager_cents=301)
    # Staged until the hit's reset; the void takes it back, so it compensates the wagers after the hit.
    level_parameters_change(level, user, {"rate": "0.01"}, "promotion over")
    contributions_apply(batch_size=2)
    hit_void(level.hit_records.get(), user, "reel malfunction")
    written = list(
        MachineContribution.objects.order_by("entry_id", "machine_id").values_list(
            "entry_id", "machine_id", *SPLIT_FIELDS
        )
    )
    # Batches of 2: (m0, m1), (m2 excluded, m0), (m1 after the hit); the void's m1: 301 cents added
    # floor(478 x 3.33) - floor(177 x 3.33) = 1,002 mc, not 3,010 at 1%.
    assert len(written) == 5
    assert written[-1][1:] == (machines[1].id, 0, 0, 0, 0, -2_008)
    MachineContribution.objects.all().delete()  # as before the migration
    assert len(jackpots_audit()[1]) == 4
    backfill = import_module("jackpots.migrations.0006_machine_contributions_backfill").parts_backfill
    assert backfill(apps, connection) == 4
    assert backfill(apps, connection) == 0
    again = list(
        MachineContribution.objects.order_by("entry_id", "machine_id").values_list(
            "entry_id", "machine_id", *SPLIT_FIELDS
        )
    )
    assert again == written
    assert jackpots_audit()[1] == []


def test_the_audit_finds_machine_rows_of_no_ledger_row_of_their_level(linked):
    _, machines, level = linked
    GameEventFactory(machine=machines[0], wager_cents=100)
    contributions_apply()
    entry = LedgerEntry.objects.get(level=level, kind=LedgerEntry.Kind.CONTRIBUTION)
    MachineContribution.objects.create(
        entry_id=entry.id + 1_000, level=level, machine=machines[1], at=entry.at, contributed_mc=5
    )
    assert [str(d) for d in jackpots_audit()[1]] == [
        "events: 1 machine contribution rows name no ledger row of their level"
    ]
