"""The machines a process remembers (slots.services.machine_map): a busy machine's posts skip their read,
and a change made by any means (here a plain UPDATE, as another process or a person at psql would) counts
from the next post, whatever path it takes."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from floor.models import Bank
from slots.models import MachineEvent, SlotMachine
from tests.factories import BankFactory
from tests.slots.helpers import game, meters_event

pytestmark = pytest.mark.postgres

_MACHINES_READ = "m.asset_number IN ("


def _machine_reads(queries: CaptureQueriesContext) -> int:
    return sum(_MACHINES_READ in query["sql"] for query in queries.captured_queries)


@pytest.mark.django_db(transaction=True)
def test_a_busy_machines_second_post_reads_no_machine(machine, machine_key, post_events):
    assert post_events([game(machine, 1)], key=machine_key)[1]["accepted"] == 1
    with CaptureQueriesContext(connection) as queries:
        assert post_events([game(machine, 2)], key=machine_key)[1]["accepted"] == 1
    assert _machine_reads(queries) == 0


@pytest.mark.django_db(transaction=True)
def test_a_machine_moved_to_another_bank_is_stored_with_the_new_one(machine, machine_key, post_events):
    assert post_events([game(machine, 1)], key=machine_key)[1]["accepted"] == 1
    other: Bank = BankFactory(room=machine.room)
    SlotMachine.objects.filter(pk=machine.pk).update(bank=other, max_bet_cents=900)
    body = post_events([game(machine, 2, wager=900)], key=machine_key)[1]
    assert body == {"accepted": 1, "duplicates": 0, "rejected": []}
    assert list(MachineEvent.objects.order_by("seq").values_list("seq", "bank_id", "is_max_bet")) == [
        (1, machine.bank_id, True),
        (2, other.pk, True),
    ]


@pytest.mark.django_db(transaction=True)
def test_out_of_service_and_back_count_from_the_next_post(machine, machine_key, post_events):
    assert post_events([game(machine, 1)], key=machine_key)[1]["accepted"] == 1
    SlotMachine.objects.filter(pk=machine.pk).update(status=SlotMachine.Status.OUT_OF_SERVICE)
    body = post_events([game(machine, 2)], key=machine_key)[1]
    assert [(item["index"], item["error"]) for item in body["rejected"]] == [(0, "machine_not_in_service")]
    SlotMachine.objects.filter(pk=machine.pk).update(status=SlotMachine.Status.IN_SERVICE)
    assert post_events([game(machine, 2)], key=machine_key)[1]["accepted"] == 1
    assert list(MachineEvent.objects.order_by("seq").values_list("seq", flat=True)) == [1, 2]


@pytest.mark.django_db
def test_in_a_transaction_the_remembered_machine_is_read_again_and_changed_bets_count(
    machine, machine_key, post_events
):
    """Inside a transaction (here the test's) no single statement confirms the machine: it is read again."""
    assert post_events([game(machine, 1)], key=machine_key)[1]["accepted"] == 1
    SlotMachine.objects.filter(pk=machine.pk).update(min_bet_cents=500, max_bet_cents=900)
    with CaptureQueriesContext(connection) as queries:
        body = post_events(
            [game(machine, 2, wager=450), meters_event(machine, {"coin_in": 1}, seq=3)], key=machine_key
        )[1]
    assert [(item["index"], item["error"]) for item in body["rejected"]] == [(0, "wager_out_of_range")]
    assert body["accepted"] == 1
    assert _machine_reads(queries) == 1, "one read confirms and serves the batch's second check"


@pytest.mark.django_db(transaction=True)
def test_a_renamed_machine_is_unknown_under_its_old_number(machine, machine_key, post_events):
    assert post_events([game(machine, 1)], key=machine_key)[1]["accepted"] == 1
    SlotMachine.objects.filter(pk=machine.pk).update(asset_number="NOG-0999")
    body = post_events([game(machine, 2)], key=machine_key)[1]
    assert [(item["index"], item["error"]) for item in body["rejected"]] == [(0, "unknown_machine")]
    assert MachineEvent.objects.count() == 1
