"""A gateway's batch of games of many machines: stored by the single statement (slots.services.storage),
which checks the venue's key and every machine, locks the machines in id order and moves each of them, as
the transaction path would."""

from __future__ import annotations

import threading

import pytest
from django.db import transaction
from django.utils import timezone

from common.credentials import credential_issue
from floor.models import SignificantEvent
from slots.models import GatewayKey, MachineAlert, MachineEvent, OfflinePeriod, SlotMachine
from slots.services import ingest
from slots.services.machines import machines_mark_offline
from tests.factories import BankFactory, SlotMachineFactory
from tests.slots.helpers import at, game
from tests.threads import lock_waiter_await, thread_with_own_connection

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _no_transaction_path(*args: object, **kwargs: object) -> None:
    raise AssertionError("the batch went through the transaction path")


def test_a_gateways_games_of_several_machines_take_one_statement(
    machine, gateway_key, post_events, monkeypatch
):
    second, silent = SlotMachineFactory.create_batch(2, room=machine.room)
    SlotMachine.objects.exclude(pk=silent.pk).update(last_seen=timezone.now())
    SlotMachine.objects.filter(pk=silent.pk).update(last_seen=None)
    assert machines_mark_offline() == 1
    monkeypatch.setattr(ingest, "machines_touch", _no_transaction_path)
    events = [game(second, 7), game(machine, 2), game(silent, 5), game(machine, 1), game(silent, 6)]

    assert post_events(events, key=gateway_key)[1] == {"accepted": 5, "duplicates": 0, "rejected": []}

    stored = MachineEvent.objects.order_by("machine_id", "seq").values_list("machine_id", "seq", "bank_id")
    assert list(stored) == [
        (machine.pk, 1, machine.bank_id),
        (machine.pk, 2, machine.bank_id),
        (second.pk, 7, second.bank_id),
        (silent.pk, 5, silent.bank_id),
        (silent.pk, 6, silent.bank_id),
    ]
    moved = SlotMachine.objects.order_by("pk").values_list("pk", "status", "last_game_at")
    assert [(pk, status, last.isoformat().replace("+00:00", "Z")) for pk, status, last in moved] == [
        (machine.pk, "in_service", at(2)),
        (second.pk, "in_service", at(7)),
        (silent.pk, "in_service", at(6)),
    ]
    period = OfflinePeriod.objects.get()
    assert (period.machine_id, period.ended_seq) == (silent.pk, 5)
    back = MachineAlert.objects.filter(kind="machine_back").values_list("machine_id", "seq")
    assert list(back) == [(silent.pk, 5)]
    online = SignificantEvent.objects.filter(kind="online").values_list("machine_id", "reference")
    assert list(online) == [(silent.pk, "seq 5")]


def test_a_gateway_key_revoked_elsewhere_stores_nothing_of_the_next_batch(machine, post_events):
    second = SlotMachineFactory(room=machine.room)
    credential, key = credential_issue(GatewayKey, kind="gw", venue=machine.room.venue)
    assert post_events([game(machine, 1), game(second, 1)], key=key)[1]["accepted"] == 2
    GatewayKey.objects.filter(pk=credential.pk).update(revoked_at=timezone.now())
    status, body = post_events([game(machine, 2), game(second, 2)], key=key)
    assert (status, body["error"]) == (401, "invalid_key")
    assert sorted(MachineEvent.objects.values_list("machine_id", "seq")) == [(machine.pk, 1), (second.pk, 1)]


def test_a_machine_changed_under_a_gateways_batch_is_checked_again(machine, gateway_key, post_events):
    """The gateway's machines are remembered after its first batch; one of them moved bank and took higher
    bets since (a plain UPDATE, as another process would): the next batch is checked and stored against
    the machine as it is now."""
    second = SlotMachineFactory(room=machine.room)
    assert post_events([game(machine, 1), game(second, 1)], key=gateway_key)[1]["accepted"] == 2
    other = BankFactory(room=machine.room)
    SlotMachine.objects.filter(pk=second.pk).update(bank=other, max_bet_cents=900)
    body = post_events([game(machine, 2), game(second, 2, wager=900)], key=gateway_key)[1]
    assert body == {"accepted": 2, "duplicates": 0, "rejected": []}
    stored = MachineEvent.objects.filter(seq=2).order_by("machine_id")
    assert list(stored.values_list("machine_id", "bank_id", "is_max_bet")) == [
        (machine.pk, machine.bank_id, True),
        (second.pk, other.pk, True),
    ]


def test_a_gateway_statement_waiting_for_its_first_machine_holds_none_of_the_others(
    machine, gateway_key, post_events
):
    """The statement locks its machines in id order, whatever order the batch names them in: while it waits
    for the first, it holds none of the others, so two batches on overlapping machines wait on each other
    instead of deadlocking (a gateway retrying a batch beside its next one)."""
    machines = sorted([machine, *SlotMachineFactory.create_batch(2, room=machine.room)], key=lambda m: m.pk)
    # The first machine's row rewritten: a scan in the table's order now meets it last, as the rows of a
    # floor whose machines were edited lie in no particular order.
    SlotMachine.objects.filter(pk=machines[0].pk).update(game_title="Diamond Vault II")
    held, release = threading.Event(), threading.Event()

    def hold_the_first() -> None:
        with transaction.atomic():
            SlotMachine.objects.select_for_update().filter(pk=machines[0].pk).exists()
            held.set()
            release.wait(10)

    holder = thread_with_own_connection(hold_the_first)
    assert held.wait(10)
    answers: list[tuple[int, dict]] = []
    batch = [game(each, 1) for each in reversed(machines)]
    post = thread_with_own_connection(lambda: answers.append(post_events(batch, key=gateway_key)))
    try:
        lock_waiter_await()
        with transaction.atomic():
            others = SlotMachine.objects.select_for_update(nowait=True).filter(
                pk__in=[each.pk for each in machines[1:]]
            )
            free = sorted(others.values_list("pk", flat=True))
    finally:
        release.set()
        holder.join(10)
        post.join(10)
    assert free == [each.pk for each in machines[1:]]
    assert answers == [(200, {"accepted": 3, "duplicates": 0, "rejected": []})]
