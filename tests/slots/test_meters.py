"""Meter snapshots become deltas: rollovers at 10**digits, memory resets flagged, never negative."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slots.models import MachineAlert, MachineMeter, MeterDelta
from slots.services.meters import meter_delta, snapshot_deltas
from tests.slots.conftest import meters_event

METERS = ["coin_in", "coin_out", "games_played"]


def test_first_snapshot_is_the_baseline():
    assert meter_delta(None, 12345600, 10**10) == (0, "baseline")


def test_increase_is_the_difference():
    assert meter_delta(100, 450, 10**10) == (350, "increment")
    assert meter_delta(450, 450, 10**10) == (0, "increment")


def test_rollover_near_the_top_wraps():
    assert meter_delta(9_999_999_900, 50, 10**10) == (150, "rollover")


def test_small_drop_is_a_memory_reset_with_no_delta():
    assert meter_delta(5_000, 0, 10**10) == (0, "memory_reset")
    assert meter_delta(4_000_000_000, 10, 10**10) == (0, "memory_reset")


def test_one_reset_meter_makes_the_snapshot_a_reset():
    deltas, reset = snapshot_deltas(
        {"coin_in": 9000, "coin_out": 100}, {"coin_in": 0, "coin_out": 150}, 10**10
    )
    assert reset is True
    assert deltas == {"coin_in": (0, "memory_reset"), "coin_out": (0, "memory_reset")}


@st.composite
def meter_histories(draw):
    """A machine's true meter increments between snapshots, and the wrapped values it reports."""
    digits = draw(st.integers(min_value=2, max_value=10))
    modulus = 10**digits
    start = draw(st.fixed_dictionaries({name: st.integers(0, modulus - 1) for name in METERS}))
    # Between two snapshots a meter advances by less than half its range (the documented limit).
    steps = draw(
        st.lists(
            st.fixed_dictionaries({name: st.integers(0, modulus // 2 - 1) for name in METERS}),
            min_size=1,
            max_size=30,
        )
    )
    return digits, start, steps


@given(meter_histories())
def test_deltas_sum_to_the_true_increments_across_rollovers(history):
    digits, start, steps = history
    modulus = 10**digits
    baseline: dict[str, int] = {}
    deltas_sum = dict.fromkeys(METERS, 0)
    true_value = dict(start)
    snapshots = [dict(start)]
    for step in steps:
        for name in METERS:
            true_value[name] += step[name]
        snapshots.append({name: true_value[name] % modulus for name in METERS})
    for number, snapshot in enumerate(snapshots):
        deltas, reset = snapshot_deltas(baseline, snapshot, modulus)
        assert reset is False
        for name, (delta, kind) in deltas.items():
            assert delta >= 0
            assert (kind == "baseline") == (number == 0)
            deltas_sum[name] += delta
        baseline = snapshot
    assert deltas_sum == {name: sum(step[name] for step in steps) for name in METERS}


@given(
    before=st.lists(st.integers(0, 10**6), min_size=1, max_size=10),
    reset_to=st.integers(0, 1000),
    after=st.lists(st.integers(0, 10**6), max_size=10),
)
def test_memory_reset_is_flagged_and_restarts_the_baseline(before, reset_to, after):
    modulus = 10**10
    value, baseline, total = 2_000_000, None, 0
    history = []
    for step in before:
        value += step
        history.append(value)
    value = reset_to
    history.append(value)
    for step in after:
        value += step
        history.append(value)
    resets = 0
    for reported in history:
        delta, kind = meter_delta(baseline, reported, modulus)
        assert delta >= 0
        resets += kind == "memory_reset"
        total += delta
        baseline = reported
    # The reset snapshot contributes nothing; everything after it counts from its value.
    assert resets == 1
    assert total == sum(before[1:]) + sum(after)


# --- Through the API -------------------------------------------------------------------------------


def _snapshot(machine, seq: int, **meters) -> dict:
    return meters_event(machine, meters, seq)


@pytest.mark.django_db
def test_snapshots_through_the_api_keep_deltas_and_baselines(machine, machine_key, post_events):
    machine.meter_digits = 4
    machine.save(update_fields=["meter_digits"])
    post_events([_snapshot(machine, 1, coin_in=9900, games_played=10)], key=machine_key)
    later = [
        _snapshot(machine, 2, coin_in=9990, games_played=12),
        _snapshot(machine, 3, coin_in=40, games_played=15),
    ]
    post_events(later, key=machine_key)
    rows = list(
        MeterDelta.objects.filter(name="coin_in").order_by("event__seq").values_list("value", "delta", "kind")
    )
    assert rows == [(9900, 0, "baseline"), (9990, 90, "increment"), (40, 50, "rollover")]
    assert MachineMeter.objects.get(machine=machine, name="coin_in").total == 140
    assert MachineMeter.objects.get(machine=machine, name="games_played").value == 15
    assert not MachineAlert.objects.exists()


@pytest.mark.django_db
def test_memory_reset_through_the_api_alerts_the_floor(machine, machine_key, post_events):
    post_events([_snapshot(machine, 1, coin_in=500_000, coin_out=400_000)], key=machine_key)
    post_events([_snapshot(machine, 2, coin_in=900, coin_out=0)], key=machine_key)
    post_events([_snapshot(machine, 3, coin_in=1_400, coin_out=100)], key=machine_key)
    alert = MachineAlert.objects.get()
    assert (alert.kind, alert.seq, alert.payload["before"]) == (
        "memory_reset",
        2,
        {"coin_in": 500_000, "coin_out": 400_000},
    )
    deltas = list(
        MeterDelta.objects.filter(name="coin_in").order_by("event__seq").values_list("delta", "kind")
    )
    assert deltas == [(0, "baseline"), (0, "memory_reset"), (500, "increment")]
    assert MachineMeter.objects.get(machine=machine, name="coin_in").total == 500


@pytest.mark.django_db
def test_a_late_older_snapshot_moves_no_baseline(machine, machine_key, post_events):
    post_events([_snapshot(machine, 1, coin_in=100), _snapshot(machine, 5, coin_in=900)], key=machine_key)
    body = post_events([_snapshot(machine, 3, coin_in=500)], key=machine_key)[1]
    assert body["accepted"] == 1
    meter = MachineMeter.objects.get(machine=machine, name="coin_in")
    assert (meter.value, meter.seq, meter.total) == (900, 5, 800)
    assert MeterDelta.objects.filter(event__seq=3).count() == 0


@pytest.mark.django_db
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.integers(0, 4999), min_size=1, max_size=12), start=st.integers(0, 9999))
def test_api_deltas_sum_to_the_true_increments(machine, machine_key, post_events, steps, start):
    from django.db import transaction

    machine.meter_digits = 4
    machine.save(update_fields=["meter_digits"])
    with transaction.atomic():
        value = start
        events = [_snapshot(machine, 1, coin_in=value)]
        for seq, step in enumerate(steps, start=2):
            value += step
            events.append(_snapshot(machine, seq, coin_in=value % 10**4))
        # One snapshot per request, as machines send them.
        for event in events:
            assert post_events([event], key=machine_key)[1]["accepted"] == 1
        assert sum(MeterDelta.objects.filter(machine=machine).values_list("delta", flat=True)) == sum(steps)
        assert MeterDelta.objects.filter(delta__lt=0).count() == 0
        transaction.set_rollback(True)
