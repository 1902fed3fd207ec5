"""The beat task takes silent machines offline; their next event brings them back."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.utils import timezone

from slots.models import MachineAlert, MachineEvent, OfflinePeriod, SlotMachine
from slots.services import machines as machines_module
from slots.tasks import machines_mark_offline_task
from tests.factories import SlotMachineFactory
from tests.slots.helpers import game
from tests.threads import lock_waiter_await, thread_with_own_connection

pytestmark = pytest.mark.django_db


def test_silent_machines_go_offline_and_others_stay(settings):
    settings.MACHINE_OFFLINE_AFTER_SECONDS = 30
    now = timezone.now()
    silent = SlotMachineFactory(last_seen=now - timedelta(seconds=31))
    never_heard = SlotMachineFactory(last_seen=None)
    talking = SlotMachineFactory(last_seen=now - timedelta(seconds=5))
    out = SlotMachineFactory(last_seen=now - timedelta(hours=1), status=SlotMachine.Status.OUT_OF_SERVICE)
    assert machines_mark_offline_task() == 2
    statuses = dict(SlotMachine.objects.values_list("pk", "status"))
    assert statuses == {
        silent.pk: "offline",
        never_heard.pk: "offline",
        talking.pk: "in_service",
        out.pk: "out_of_service",
    }
    assert machines_mark_offline_task() == 0


def test_the_threshold_is_a_setting(settings):
    settings.MACHINE_OFFLINE_AFTER_SECONDS = 120
    machine = SlotMachineFactory(last_seen=timezone.now() - timedelta(seconds=60))
    assert machines_mark_offline_task() == 0
    machine.refresh_from_db()
    assert machine.status == "in_service"


def test_offline_machine_is_back_in_service_with_its_next_event(machine, machine_key, post_events):
    SlotMachine.objects.filter(pk=machine.pk).update(last_seen=timezone.now() - timedelta(minutes=5))
    assert machines_mark_offline_task() == 1
    machine.refresh_from_db()
    assert machine.status == "offline"
    assert post_events([game(machine, 1)], key=machine_key)[1]["accepted"] == 1
    machine.refresh_from_db()
    assert machine.status == "in_service"
    assert machines_mark_offline_task() == 0


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["single statement", "transaction", "a gateway's single statement"])
def test_a_post_waiting_on_the_beat_that_marks_its_machine_offline_ends_the_period(
    machine, machine_key, gateway_key, post_events, *, monkeypatch, path
):
    """The beat marks a silent machine offline while the machine's first games are on their way: the post
    waits for the beat's lock on the machine, and once the beat commits it must end the period the beat
    opened, not leave it open behind a machine back in service (whose games would then count towards no
    level until its next post). A game alone takes the single statement; with a status event the batch
    goes through a transaction of several statements; a gateway's games of two machines take the single
    statement, which must end both periods."""
    machines, key, events = [machine], machine_key, [game(machine, 1)]
    if path == "transaction":
        events.append({**game(machine, 2), "type": "status", "status": "door_open"})
    elif path == "a gateway's single statement":
        machines.append(SlotMachineFactory(room=machine.room))
        key, events = gateway_key, [game(machines[1], 4), game(machine, 1), game(machines[1], 3)]
    SlotMachine.objects.filter(pk__in=[each.pk for each in machines]).update(last_seen=None)
    locked, release = threading.Event(), threading.Event()
    significant = machines_module._offline_significant

    def pause_before_commit(silent, now):  # the beat's transaction holds the machines' rows from here
        significant(silent, now)
        locked.set()
        release.wait(10)

    monkeypatch.setattr(machines_module, "_offline_significant", pause_before_commit)
    answers: list[tuple[int, dict]] = []
    beat = thread_with_own_connection(machines_module.machines_mark_offline)
    assert locked.wait(10)
    post = thread_with_own_connection(lambda: answers.append(post_events(events, key=key)))
    lock_waiter_await()
    release.set()
    beat.join(10)
    post.join(10)
    assert answers == [(200, {"accepted": len(events), "duplicates": 0, "rejected": []})]
    for each, first_seq in zip(machines, (1, 3), strict=False):
        each.refresh_from_db()
        assert each.status == "in_service"
        period = OfflinePeriod.objects.get(machine=each)
        assert (period.ended_at, period.ended_seq) == (period.started_at, first_seq)
        alerts = MachineAlert.objects.filter(machine=each).order_by("id").values_list("kind", "seq")
        assert list(alerts) == [("machine_offline", 0), ("machine_back", first_seq)]
    assert MachineEvent.objects.count() == len(events)
