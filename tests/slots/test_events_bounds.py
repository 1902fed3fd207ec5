"""POST /api/v1/events: dates, offsets, wins and jackpot amounts beyond their bounds are rejected one by
one, and the valid events of the same request are kept."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from jackpots.models import ProgressiveMachine
from slots.models import MachineEvent
from tests.factories import LevelFactory
from tests.slots.helpers import game

pytestmark = pytest.mark.django_db


def _codes(body: dict) -> list[tuple[int, str]]:
    return [(item["index"], item["error"]) for item in body["rejected"]]


def _rfc3339(instant) -> str:
    return instant.isoformat().replace("+00:00", "Z")


@pytest.mark.parametrize("key_fixture", ["machine_key", "gateway_key"])
def test_an_event_dated_year_1_is_rejected_and_the_others_are_stored(
    machine, post_events, request, key_fixture
):
    """Finding 1: year 1 used to be stored (then the hour stats and the floor pages failed)."""
    key = request.getfixturevalue(key_fixture)
    events = [game(machine, 1), {**game(machine, 2), "at": "0001-01-01T00:00:00Z"}, game(machine, 3)]
    status, body = post_events(events, key=key)
    assert status == 200
    assert (body["accepted"], _codes(body)) == (2, [(1, "at_too_old")])
    assert sorted(MachineEvent.objects.values_list("seq", flat=True)) == [1, 3]


def test_the_age_bound_is_the_setting(machine, machine_key, post_events, settings):
    settings.EVENT_MAX_AGE_SECONDS = 3600
    now = timezone.now()
    inside = {**game(machine, 1), "at": _rfc3339(now - timedelta(seconds=3500))}
    outside = {**game(machine, 2), "at": _rfc3339(now - timedelta(seconds=3700))}
    body = post_events([inside, outside], key=machine_key)[1]
    assert (body["accepted"], _codes(body)) == (1, [(1, "at_too_old")])
    assert body["rejected"][0]["detail"] == "`at` is more than 3600 seconds old."


def test_a_gateway_may_send_a_week_old_event_by_default(machine, gateway_key, post_events):
    week = {**game(machine, 1), "at": _rfc3339(timezone.now() - timedelta(days=7) + timedelta(minutes=5))}
    older = {**game(machine, 2), "at": _rfc3339(timezone.now() - timedelta(days=7, minutes=5))}
    body = post_events([week, older], key=gateway_key)[1]
    assert (body["accepted"], _codes(body)) == (1, [(1, "at_too_old")])


@pytest.mark.parametrize(
    ("at", "code"),
    [
        # Offsets beyond ±14:00 (the furthest any zone is from UTC): they used to answer an HTML 500.
        ("{day}T12:00:00+16:00", "invalid_at"),
        ("{day}T12:00:00+23:59", "invalid_at"),
        ("{day}T12:00:00-15:00", "invalid_at"),
        ("{day}T12:00:00+14:01", "invalid_at"),
        # The earliest instant with the furthest offset is before year 1 in UTC: it used to answer 500.
        ("0001-01-01T00:00:00+14:00", "at_too_old"),
        ("9999-12-31T23:59:59-14:00", "at_in_future"),
        # Impossible dates and times.
        ("2026-02-30T12:00:00Z", "invalid_at"),
        ("{day}T24:00:00Z", "invalid_at"),
        ("{day}T25:00:00Z", "invalid_at"),
        ("{day}T12:60:00Z", "invalid_at"),
        ("{day}T12:00:61Z", "invalid_at"),
        ("0000-01-01T00:00:00Z", "invalid_at"),
    ],
)
def test_bad_offsets_and_impossible_dates_are_rejected_and_the_batch_is_kept(
    machine, machine_key, post_events, at, code
):
    """Finding 3: the valid events of the same request are stored, the bad one is rejected with a code."""
    day = (timezone.now() - timedelta(days=1)).date().isoformat()
    events = [game(machine, 1), {**game(machine, 2), "at": at.format(day=day)}, game(machine, 3)]
    status, body = post_events(events, key=machine_key)
    assert status == 200
    assert (body["accepted"], body["duplicates"], _codes(body)) == (2, 0, [(1, code)])
    assert sorted(MachineEvent.objects.values_list("seq", flat=True)) == [1, 3]


def test_offsets_of_exactly_14_hours_are_accepted(machine, machine_key, post_events):
    now = timezone.now() - timedelta(hours=1)
    east = {**game(machine, 1), "at": now.astimezone(timezone.get_fixed_timezone(14 * 60)).isoformat()}
    west = {**game(machine, 2), "at": now.astimezone(timezone.get_fixed_timezone(-14 * 60)).isoformat()}
    assert east["at"].endswith("+14:00") and west["at"].endswith("-14:00")
    body = post_events([east, west], key=machine_key)[1]
    assert body == {"accepted": 2, "duplicates": 0, "rejected": []}


def test_a_win_of_2_63_minus_1_is_rejected(machine, machine_key, post_events):
    """Finding 2: such a win used to be stored; two in an hour overflowed the hour stats."""
    events = [game(machine, 1, win=2**63 - 1), game(machine, 2, win=2**63 - 1), game(machine, 3, win=900)]
    body = post_events(events, key=machine_key)[1]
    assert (body["accepted"], _codes(body)) == (1, [(0, "win_out_of_range"), (1, "win_out_of_range")])
    assert list(MachineEvent.objects.values_list("seq", "win_cents")) == [(3, 900)]


def test_a_win_is_bounded_by_a_multiple_of_its_wager_and_by_an_absolute_cap(
    machine, machine_key, post_events, settings
):
    settings.GAME_WIN_MAX_MULTIPLE = 1000
    settings.GAME_WIN_MAX_CENTS = 400_000
    events = [
        game(machine, 1, wager=100, win=100_000),  # 1000 times the wager: the limit itself
        game(machine, 2, wager=100, win=100_001),
        game(machine, 3, wager=450, win=400_000),  # the cap itself (the multiple would allow 450,000)
        game(machine, 4, wager=450, win=400_001),
    ]
    body = post_events(events, key=machine_key)[1]
    assert (body["accepted"], _codes(body)) == (2, [(1, "win_out_of_range"), (3, "win_out_of_range")])
    assert [item["detail"] for item in body["rejected"]] == [
        "A win of 100001 cents is more than 1000 times the wager of 100 cents.",
        "A win of 400001 cents is more than the largest win accepted, 400000 cents.",
    ]


def test_a_jackpot_amount_is_bounded(machine, machine_key, post_events, settings):
    settings.JACKPOT_MAX_CENTS = 5_000_000
    level = LevelFactory()
    ProgressiveMachine.objects.create(progressive=level.progressive, machine=machine)
    events = [
        {**game(machine, seq), "type": "jackpot", "level": level.pk, "amount": amount}
        for seq, amount in ((1, 5_000_000), (2, 5_000_001), (3, 2**63 - 1))
    ]
    body = post_events(events, key=machine_key)[1]
    assert (body["accepted"], _codes(body)) == (1, [(1, "amount_out_of_range"), (2, "amount_out_of_range")])
    assert list(MachineEvent.objects.values_list("seq", "amount_cents")) == [(1, 5_000_000)]
