"""The beat task takes silent machines offline; their next event brings them back."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from slots.models import SlotMachine
from slots.tasks import machines_mark_offline_task
from tests.factories import SlotMachineFactory
from tests.slots.helpers import game

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
