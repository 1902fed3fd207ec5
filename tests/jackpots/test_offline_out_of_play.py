"""Offline means out of play (issue 21, finding 6: a game dated 120 s earlier, played while NOG-0004 was
marked offline, still contributed, and going offline raised no alert).

The rule (docs/payments.md): from the moment the beat marks a machine offline until the server hears it
again, the machine is out of play. Its games dated inside that period count towards no level; its jackpot
reports dated inside are refused (``machine_offline``); its games dated before the mark (late deliveries)
and after it is heard again count. Going offline and coming back each raise a floor alert with its time."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from common.credentials import credential_issue
from jackpots.audit import jackpots_audit
from jackpots.models import Hit, HitRefusal
from jackpots.services import contributions_apply
from slots.models import MachineAlert, MachineKey, OfflinePeriod, SlotMachine
from slots.services.machines import machines_mark_offline

pytestmark = pytest.mark.django_db(transaction=True)


def _post(machine: SlotMachine, events: list[dict]) -> dict:
    key = credential_issue(MachineKey, kind="mach", machine=machine)[1]
    response = Client().post(
        "/api/v1/events",
        data={"events": [{"machine": machine.asset_number, **event} for event in events]},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )
    assert response.status_code == 200, response.content
    assert response.json()["rejected"] == [], response.json()
    return response.json()


def _game(seq: int, at, wager: int) -> dict:
    return {"seq": seq, "at": at.isoformat(), "type": "game", "wager": wager, "win": 0}


def _jackpot(seq: int, at, level_id: int, amount: int) -> dict:
    return {"seq": seq, "at": at.isoformat(), "type": "jackpot", "level": level_id, "amount": amount}


def _marked_offline(machine: SlotMachine, at) -> None:
    """The beat marks the machine offline at ``at``: silent for 31 s by then (the others just heard)."""
    SlotMachine.objects.exclude(pk=machine.pk).update(last_seen=at)
    SlotMachine.objects.filter(pk=machine.pk).update(last_seen=at - timedelta(seconds=31))
    assert machines_mark_offline(now=at) == 1


@pytest.mark.parametrize("with_status", [False, True], ids=["one-statement insert", "transaction"])
def test_games_dated_while_marked_offline_do_not_count_and_games_outside_do(linked, settings, with_status):
    settings.ENGINE_SETTLE_MILLISECONDS = 0
    _, machines, level = linked
    machine = machines[0]
    offline_at = timezone.now() - timedelta(seconds=300)
    _marked_offline(machine, offline_at)
    # Heard again now: a game played before the mark (delivered late), one dated 120 s ago (inside the
    # offline period), and (with_status) a door event, which takes the ingest's other path.
    events = [
        _game(1, offline_at - timedelta(seconds=5), 100),
        _game(2, timezone.now() - timedelta(seconds=120), 400),
    ]
    if with_status:
        events.append(
            {
                "seq": 3,
                "at": (offline_at - timedelta(seconds=1)).isoformat(),
                "type": "status",
                "status": "door_open",
            }
        )
    assert _post(machine, events)["accepted"] == len(events)
    period = OfflinePeriod.objects.get(machine=machine)
    assert (period.started_at, period.ended_seq) == (offline_at, 1)
    # Back in play from 10 s (MACHINE_BACK_GRACE_SECONDS) before it was heard: the 120 s old game stays out.
    assert period.ended_at > offline_at + timedelta(seconds=289)
    # Played after it was heard again: counts.
    assert _post(machine, [_game(10, period.ended_at + timedelta(milliseconds=1), 300)])["accepted"] == 1
    contributions_apply()
    level.refresh_from_db()
    assert level.wagered_cents == 100 + 300
    assert level.current_mc == 100_000_000 + 4_000  # 1% of €4.00
    machine.refresh_from_db()
    assert machine.status == "in_service"
    alerts = list(
        MachineAlert.objects.filter(machine=machine).order_by("at").values_list("kind", "seq", "at")
    )
    assert alerts == [("machine_offline", 0, offline_at), ("machine_back", 1, period.ended_at)]
    assert jackpots_audit()[1] == []


def test_a_jackpot_dated_while_marked_offline_is_refused_machine_offline(linked, settings):
    settings.ENGINE_SETTLE_MILLISECONDS = 0
    _, machines, level = linked
    machine = machines[0]
    offline_at = timezone.now() - timedelta(seconds=300)
    _marked_offline(machine, offline_at)
    inside = timezone.now() - timedelta(seconds=120)
    _post(machine, [_game(1, inside, 400), _jackpot(2, inside + timedelta(seconds=1), level.id, 100_000)])
    contributions_apply()
    assert Hit.objects.count() == 0
    refusal = HitRefusal.objects.get()
    assert (refusal.code, refusal.machine_id, refusal.level_id) == ("machine_offline", machine.id, level.id)
    assert MachineAlert.objects.filter(machine=machine, kind="jackpot_refused").count() == 1
    level.refresh_from_db()
    assert (level.wagered_cents, level.current_mc) == (0, 100_000_000)
    # Heard again: the same machine wins with a game played after.
    ended_at = OfflinePeriod.objects.get(machine=machine).ended_at
    after = ended_at + timedelta(milliseconds=1)
    _post(machine, [_game(3, after, 450), _jackpot(4, after + timedelta(milliseconds=1), level.id, 100_004)])
    contributions_apply()
    hit = Hit.objects.get()
    assert (hit.machine_id, hit.amount_cents) == (machine.id, 100_004)
    assert jackpots_audit()[1] == []


def test_a_machine_still_offline_stays_in_one_open_period_and_one_alert(linked):
    _, machines, _ = linked
    _marked_offline(machines[0], timezone.now())
    assert machines_mark_offline() == 0
    assert list(OfflinePeriod.objects.values_list("machine_id", "ended_at")) == [(machines[0].id, None)]
    assert MachineAlert.objects.filter(kind="machine_offline").count() == 1
