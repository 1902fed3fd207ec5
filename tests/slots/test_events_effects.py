"""POST /api/v1/events: exactly once, and what accepted events change (machine, engine)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError

from common.background import BackgroundSender
from slots.hooks import hooks
from slots.models import MachineAlert, MachineEvent, SlotMachine
from slots.services.engine_notify import engine_notifier
from tests.factories import SlotMachineFactory
from tests.slots.helpers import BASE_AT, at, game, meters_event

pytestmark = pytest.mark.django_db


# --- Exactly once ----------------------------------------------------------------------------------


def test_retry_is_a_duplicate_and_changes_nothing(machine, machine_key, post_events):
    events = [game(machine, 1), game(machine, 2, win=900)]
    assert post_events(events, key=machine_key)[1] == {"accepted": 2, "duplicates": 0, "rejected": []}
    stored = list(MachineEvent.objects.order_by("seq").values_list("id", "digest", "received_at"))
    assert post_events([*events, game(machine, 3)], key=machine_key)[1] == {
        "accepted": 1,
        "duplicates": 2,
        "rejected": [],
    }
    assert list(MachineEvent.objects.order_by("seq").values_list("id", "digest", "received_at"))[:2] == stored


def test_same_seq_other_content_is_a_conflict_recorded_for_the_floor(machine, machine_key, post_events):
    post_events([game(machine, 7, win=0)], key=machine_key)
    status, body = post_events([game(machine, 7, win=5000)], key=machine_key)
    assert status == 200
    assert (body["accepted"], body["duplicates"]) == (0, 0)
    assert [(item["index"], item["error"]) for item in body["rejected"]] == [(0, "seq_conflict")]
    assert MachineEvent.objects.get().win_cents == 0
    alert = MachineAlert.objects.get()
    assert (alert.machine_id, alert.kind, alert.seq, alert.payload["win"]) == (
        machine.pk,
        "seq_conflict",
        7,
        5000,
    )


def test_repeats_inside_one_batch(machine, machine_key, post_events):
    events = [game(machine, 1), game(machine, 1), game(machine, 1, win=10)]
    body = post_events(events, key=machine_key)[1]
    assert (body["accepted"], body["duplicates"]) == (1, 1)
    assert [(item["index"], item["error"]) for item in body["rejected"]] == [(2, "seq_conflict")]
    assert MachineAlert.objects.filter(kind="seq_conflict").count() == 1


def test_rejected_events_do_not_stop_the_valid_ones(machine, machine_key, post_events):
    events = [game(machine, 1), game(machine, 2, wager=0), game(machine, 3)]
    body = post_events(events, key=machine_key)[1]
    assert (body["accepted"], [item["index"] for item in body["rejected"]]) == (2, [1])
    assert sorted(MachineEvent.objects.values_list("seq", flat=True)) == [1, 3]


# --- What accepted events change -------------------------------------------------------------------


def test_game_is_stored_ready_for_the_engine(machine, machine_key, post_events):
    post_events([game(machine, 1, wager=450, win=900), game(machine, 2, wager=100)], key=machine_key)
    rows = list(
        MachineEvent.objects.order_by("seq").values_list(
            "type",
            "wager_cents",
            "win_cents",
            "bank_id",
            "denomination_cents",
            "is_max_bet",
            "pending",
            "payload",
        )
    )
    assert rows == [
        (1, 450, 900, machine.bank_id, 50, True, True, {"wager": 450, "win": 900}),
        (1, 100, 0, machine.bank_id, 50, False, True, {"wager": 100, "win": 0}),
    ]


def test_events_move_last_seen_and_games_move_last_game_at(machine, machine_key, post_events):
    before = timezone.now()
    post_events([game(machine, 2), game(machine, 1)], key=machine_key)
    machine.refresh_from_db()
    assert machine.last_seen >= before
    assert machine.last_game_at == MachineEvent.objects.get(seq=2).at
    status_event = {
        "machine": machine.asset_number,
        "seq": 3,
        "at": at(3),
        "type": "status",
        "status": "tilt",
    }
    post_events([status_event], key=machine_key)
    machine.refresh_from_db()
    assert machine.last_game_at == MachineEvent.objects.get(seq=2).at


def test_an_offline_machine_comes_back_with_its_next_event(machine, machine_key, post_events):
    SlotMachine.objects.filter(pk=machine.pk).update(status=SlotMachine.Status.OFFLINE)
    assert post_events([game(machine, 1)], key=machine_key)[1]["accepted"] == 1
    machine.refresh_from_db()
    assert machine.status == SlotMachine.Status.IN_SERVICE


@pytest.mark.parametrize(
    ("statuses", "flags"),
    [
        (["door_open"], (True, False, False, True)),
        (["door_open", "door_closed"], (False, False, False, True)),
        (["tilt"], (False, True, False, True)),
        (["tilt", "power_off"], (False, True, False, False)),
        (["tilt", "power_off", "power_on"], (False, False, False, True)),
        (["handpay_lockup"], (False, False, True, True)),
        (["handpay_lockup", "handpay_reset"], (False, False, False, True)),
    ],
)
def test_status_events_set_the_machine_flags(machine, machine_key, post_events, statuses, flags):
    events = [
        {"machine": machine.asset_number, "seq": seq, "at": at(seq), "type": "status", "status": status}
        for seq, status in enumerate(statuses, start=1)
    ]
    # Posted newest first: they are applied in seq order all the same.
    assert post_events(events[::-1], key=machine_key)[1]["accepted"] == len(statuses)
    machine.refresh_from_db()
    assert (machine.door_open, machine.tilted, machine.handpay_locked, machine.powered) == flags
    assert machine.status_seq == len(statuses)


def test_an_older_status_arriving_late_does_not_overwrite_a_newer_one(machine, machine_key, post_events):
    def status(seq: int, name: str) -> dict:
        return {"machine": machine.asset_number, "seq": seq, "at": at(seq), "type": "status", "status": name}

    post_events([status(5, "door_closed")], key=machine_key)
    post_events([status(4, "door_open")], key=machine_key)
    machine.refresh_from_db()
    assert (machine.door_open, machine.status_seq) == (False, 5)
    assert MachineEvent.objects.count() == 2


def calls_until(calls: list, count: int, timeout: float = 3.0) -> list:
    deadline = time.monotonic() + timeout
    while len(calls) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)  # and nothing more comes
    return calls


@override_settings(CELERY_TASK_ALWAYS_EAGER=False)
def test_with_a_worker_the_last_events_of_a_burst_get_their_own_engine_run(
    machine, machine_key, post_events, django_capture_on_commit_callbacks, monkeypatch
):
    """Three posts within the notify interval: the first asks the engine at once, the later two share one
    more run asked after their commit, so no event waits for a later request (or for beat)."""
    calls = []
    monkeypatch.setattr(hooks, "engine_wake", lambda: calls.append(time.monotonic()))
    monkeypatch.setattr(engine_notifier, "interval", 1.0)
    for seq in (1, 2, 3):
        with django_capture_on_commit_callbacks(execute=True):
            post_events([game(machine, seq)], key=machine_key)
        last_commit_at = time.monotonic()
    assert len(calls_until(calls, 2)) == 2
    assert calls[1] - calls[0] >= 1.0
    assert calls[1] >= last_commit_at


def test_notifier_sends_at_most_every_interval_and_always_after_the_last_flag():
    sent = []
    notifier = BackgroundSender(lambda: sent.append(time.monotonic()), name="test", interval=0.2)
    notifier.notify()
    flags = []
    for _ in range(5):
        notifier.notify()
        flags.append(time.monotonic())
        time.sleep(0.02)
    assert len(calls_until(sent, 2)) == 2
    assert sent[1] - sent[0] >= 0.2
    assert sent[1] >= flags[-1]


def test_notifier_keeps_asking_while_the_broker_is_down():
    attempts = []

    def send() -> None:
        attempts.append(time.monotonic())
        if len(attempts) < 3:
            raise KombuOperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    notifier = BackgroundSender(send, name="test", interval=0.01, retry=0.05)
    notifier.notify()
    assert len(calls_until(attempts, 3)) == 3, "two refusals, then the broker takes the task, once"


@override_settings(CELERY_TASK_ALWAYS_EAGER=False)
def test_with_the_broker_down_events_are_stored_and_answered_200(
    machine, machine_key, post_events, django_capture_on_commit_callbacks, monkeypatch
):
    def refused() -> None:
        raise KombuOperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(hooks, "engine_wake", refused)
    with django_capture_on_commit_callbacks(execute=True):
        status, body = post_events([game(machine, 1), game(machine, 2)], key=machine_key)
    assert (status, body) == (200, {"accepted": 2, "duplicates": 0, "rejected": []})
    assert MachineEvent.objects.filter(machine=machine, pending=True).count() == 2


@override_settings(CELERY_TASK_ALWAYS_EAGER=True)
def test_engine_is_asked_once_per_request_after_commit(
    machine, machine_key, post_events, django_capture_on_commit_callbacks, monkeypatch
):
    calls = []
    monkeypatch.setattr(hooks, "engine_wake", lambda: calls.append(1))
    with django_capture_on_commit_callbacks(execute=True):
        post_events([game(machine, seq) for seq in range(1, 51)], key=machine_key)
    assert calls == [1]
    status_event = {
        "machine": machine.asset_number,
        "seq": 99,
        "at": at(99),
        "type": "status",
        "status": "tilt",
    }
    with django_capture_on_commit_callbacks(execute=True):
        post_events([status_event, game(machine, 1)], key=machine_key)
    assert calls == [1], "no game or jackpot stored: the engine has nothing to do"


def test_gateway_batch_of_many_machines_with_meters_and_status(machine, gateway_key, post_events):
    others = SlotMachineFactory.create_batch(3, room=machine.room)
    events = []
    for number, each in enumerate([machine, *others]):
        events += [
            game(each, 1),
            meters_event(each, {"coin_in": 1000 * (number + 1), "games_played": 3}, seq=2),
            {"machine": each.asset_number, "seq": 3, "at": at(3), "type": "status", "status": "door_open"},
        ]
    body = post_events(events, key=gateway_key)[1]
    assert body == {"accepted": 12, "duplicates": 0, "rejected": []}
    assert sorted(SlotMachine.objects.values_list("door_open", flat=True)) == [True] * 4
    assert SlotMachine.objects.filter(last_game_at__isnull=True).count() == 0


def test_unknown_extra_fields_are_kept_in_the_payload(machine, machine_key, post_events):
    post_events([game(machine, 1, denomination_game="2x3x4x5x")], key=machine_key)
    assert MachineEvent.objects.get().payload == {"wager": 450, "win": 0, "denomination_game": "2x3x4x5x"}


def test_a_batch_of_several_machines_moves_each_once_and_never_back(machine, gateway_key, post_events):
    """The general path's one UPDATE of the batch's machines: each machine's last game is its latest game
    of the batch unless it had a later one; a machine with no game keeps its last game; an offline
    machine is back in service; every machine's last_seen is the post's moment."""
    ahead, offline, meters_only = SlotMachineFactory.create_batch(3, room=machine.room)
    later = BASE_AT + timedelta(hours=1)
    SlotMachine.objects.filter(pk=ahead.pk).update(last_game_at=later)
    SlotMachine.objects.filter(pk=offline.pk).update(status=SlotMachine.Status.OFFLINE)
    before = timezone.now()
    events = [
        game(machine, 1),
        game(machine, 3),
        game(machine, 2),
        game(ahead, 5),
        game(offline, 7),
        meters_event(meters_only, {"coin_in": 1000, "games_played": 3}, seq=4),
    ]
    assert post_events(events, key=gateway_key)[1] == {"accepted": 6, "duplicates": 0, "rejected": []}
    rows = {
        pk: (last_game_at, status)
        for pk, last_game_at, status in SlotMachine.objects.values_list("pk", "last_game_at", "status")
    }
    assert rows == {
        machine.pk: (BASE_AT + timedelta(seconds=3), "in_service"),
        ahead.pk: (later, "in_service"),
        offline.pk: (BASE_AT + timedelta(seconds=7), "in_service"),
        meters_only.pk: (None, "in_service"),
    }
    seen = set(SlotMachine.objects.values_list("last_seen", flat=True))
    assert len(seen) == 1 and seen.pop() >= before
