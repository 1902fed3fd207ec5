"""Meter snapshots become deltas: rollovers at 10**digits, memory resets flagged, never negative."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slots.models import MachineAlert, MachineMeter, MeterDelta
from slots.services.meters import (
    MeterReviewRefused,
    PlausibilityRule,
    implausible_jumps,
    meter_ceiling,
    meter_delta,
    meter_delta_accept,
    meter_delta_correct,
    snapshot_deltas,
)
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


# --- Plausibility ----------------------------------------------------------------------------------

RULE = PlausibilityRule(min_game_ms=1000, max_payout_bets=10_000, margin=2)


def test_ceiling_is_the_games_possible_times_the_bet_bound_times_the_margin():
    ten_seconds = timedelta(seconds=10, milliseconds=999)
    # 10 whole game times and the game in play: 11 games.
    assert meter_ceiling("coin_in", 500, ten_seconds, RULE) == 11 * 500 * 2
    assert meter_ceiling("games_played", 500, ten_seconds, RULE) == 11 * 2
    assert meter_ceiling("handpay", 500, ten_seconds, RULE) == 11 * 500 * 10_000 * 2
    # A clock that went backwards allows the game in play only.
    assert meter_ceiling("coin_in", 500, timedelta(seconds=-30), RULE) == 1 * 500 * 2


def test_only_increments_and_rollovers_beyond_their_ceiling_are_implausible():
    at = datetime(2026, 11, 21, 18, 0, tzinfo=UTC)
    since = dict.fromkeys(["coin_in", "coin_out", "games_played"], at - timedelta(seconds=1))
    deltas = {
        "coin_in": (1_801, "increment"),
        "coin_out": (1_801, "rollover"),
        "games_played": (4, "increment"),
    }
    # One second: 2 games of at most €4.50, twice over: 1,800 cents of coin in, 4 games.
    assert implausible_jumps(deltas, since, at, 450, RULE) == {"coin_in": 1_800}
    assert implausible_jumps({"coin_in": (0, "baseline")}, {}, at, 450, RULE) == {}


@pytest.mark.django_db
def test_impossible_meter_jump_is_flagged_not_counted(machine, machine_key, post_events):
    """The issue's snapshot: coin in from 1,000,450 to 9,999,999,000 one second later is stored as the
    machine reported it, flagged for a person, and the floor is alerted with the numbers."""
    post_events([_snapshot(machine, 1, coin_in=1_000_450, coin_out=800_000)], key=machine_key)
    post_events([_snapshot(machine, 2, coin_in=9_999_999_000, coin_out=800_300)], key=machine_key)
    jump = MeterDelta.objects.get(event__seq=2, name="coin_in")
    assert (jump.delta, jump.kind, jump.review, jump.ceiling) == (
        9_998_998_550,
        "increment",
        "pending",
        1_800,
    )
    assert MeterDelta.objects.get(event__seq=2, name="coin_out").review == ""
    alert = MachineAlert.objects.get()
    assert (alert.kind, alert.seq, alert.acknowledged_at) == ("implausible_meters", 2, None)
    assert alert.payload == {
        "meters": {
            "coin_in": {"before": 1_000_450, "after": 9_999_999_000, "delta": 9_998_998_550, "ceiling": 1_800}
        },
        "max_bet_cents": 450,
    }
    assert "coin_in 1000450 → 9999999000 (+9998998550, at most +1800)" in alert.detail
    totals = dict(MachineMeter.objects.filter(machine=machine).values_list("name", "total"))
    assert totals == {"coin_in": 0, "coin_out": 300}
    # The snapshot is still the baseline: the next one counts from it.
    post_events([_snapshot(machine, 3, coin_in=9_999_999_450, coin_out=800_300)], key=machine_key)
    assert MachineMeter.objects.get(machine=machine, name="coin_in").total == 450


@pytest.fixture
def flagged(machine, machine_key, post_events) -> MeterDelta:
    post_events([_snapshot(machine, 1, coin_in=1_000_450, handpay=0)], key=machine_key)
    post_events([_snapshot(machine, 2, coin_in=1_000_900, handpay=999_999_000)], key=machine_key)
    return MeterDelta.objects.get(event__seq=2, name="handpay", review="pending")


def _handpays(machine) -> int:
    from common.days import business_date_of
    from workspace.reports.selectors import game_report

    venue = machine.room.venue
    day = business_date_of(MeterDelta.objects.get(event__seq=2, name="handpay").at, venue.time_zone)
    return game_report(venue, day, day).total.handpay_wins_cents


@pytest.mark.django_db
def test_reports_leave_a_flagged_delta_out_until_accepted(flagged, machine, floor_manager):
    assert _handpays(machine) == 0
    accepted = meter_delta_accept(flagged.id, floor_manager, "checked on the machine")
    assert (accepted.review, accepted.reviewed_by, accepted.delta) == ("accepted", floor_manager, 999_999_000)
    assert accepted.reviewed_at is not None
    assert _handpays(machine) == 999_999_000
    assert MachineMeter.objects.get(machine=machine, name="handpay").total == 999_999_000
    alert = MachineAlert.objects.get(kind="implausible_meters")
    assert (alert.acknowledged_by, alert.acknowledged_at) == (floor_manager, accepted.reviewed_at)
    with pytest.raises(MeterReviewRefused) as error:
        meter_delta_accept(flagged.id, floor_manager)
    assert error.value.code == "not_pending"


@pytest.mark.django_db
def test_a_correction_replaces_the_delta_and_keeps_the_reported_one(flagged, machine, floor_manager):
    for value, note, code in (
        (-1, "x", "invalid_delta"),
        (True, "x", "invalid_delta"),
        (125_000, " ", "reason_required"),
    ):
        with pytest.raises(MeterReviewRefused) as error:
            meter_delta_correct(flagged.id, floor_manager, value, note)
        assert error.value.code == code
    assert MeterDelta.objects.get(pk=flagged.pk).review == "pending"
    corrected = meter_delta_correct(flagged.id, floor_manager, 125_000, "the attendant's slip says €1,250")
    row = MeterDelta.objects.get(pk=flagged.pk)
    assert (row.review, row.delta, row.reported_delta, row.review_note) == (
        "corrected",
        125_000,
        999_999_000,
        "the attendant's slip says €1,250",
    )
    assert corrected.reviewed_by == floor_manager
    assert _handpays(machine) == 125_000
    assert MachineMeter.objects.get(machine=machine, name="handpay").total == 125_000


@pytest.mark.django_db
def test_admin_accepts_and_corrects_flagged_deltas_and_logs_who(
    client, flagged, machine_key, post_events, floor_manager
):
    from django.contrib.admin.models import LogEntry

    post_events([_snapshot(flagged.machine, 3, coin_in=1_001_350, handpay=1_999_999_000)], key=machine_key)
    second = MeterDelta.objects.get(event__seq=3, name="handpay", review="pending")
    client.force_login(floor_manager)
    changelist = "/admin/slots/meterdelta/"
    accept = {"action": "accept_selected", "_selected_action": [flagged.pk]}
    assert client.post(changelist, accept, follow=True).status_code == 200
    form = client.post(changelist, {"action": "correct_selected", "_selected_action": [second.pk]})
    assert "the machine reported +1000000000, at most +18000000" in form.content.decode()
    correct = {
        "action": "correct_selected",
        "_selected_action": [second.pk],
        "confirm": "1",
        "delta": "0",
        "note": "a glitch: no handpay on the slip",
    }
    client.post(changelist, correct, follow=True)
    rows = MeterDelta.objects.filter(name="handpay", event__seq__in=[2, 3]).order_by("event__seq")
    assert [(r.review, r.delta, r.reported_delta, r.reviewed_by) for r in rows] == [
        ("accepted", 999_999_000, None, floor_manager),
        ("corrected", 0, 1_000_000_000, floor_manager),
    ]
    assert sorted(LogEntry.objects.filter(user=floor_manager).values_list("change_message", flat=True)) == [
        "Accepted",
        "Corrected to 0: a glitch: no handpay on the slip",
    ]
    # A reviewed delta cannot be reviewed again.
    again = client.post(changelist, accept, follow=True)
    assert (
        "Only a flagged delta awaiting review can be accepted or corrected. (not_pending)"
        in again.content.decode()
    )
    assert MeterDelta.objects.get(pk=flagged.pk).review == "accepted"


@pytest.mark.django_db
def test_an_attendant_cannot_review_deltas(client, flagged):
    from floor.roles import SLOT_ATTENDANT
    from tests.staff_fixtures import staff_member

    client.force_login(staff_member("attendant", SLOT_ATTENDANT))
    client.post("/admin/slots/meterdelta/", {"action": "accept_selected", "_selected_action": [flagged.pk]})
    assert MeterDelta.objects.get(pk=flagged.pk).review == "pending"
