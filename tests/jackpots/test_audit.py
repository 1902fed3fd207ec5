from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db.models import F

from jackpots.models import Level
from jackpots.services import contributions_apply
from slots.models import MachineEvent
from tests.jackpots.factories import GameEventFactory, JackpotEventFactory

pytestmark = pytest.mark.django_db


def _run(capsys) -> tuple[int, str]:
    try:
        call_command("jackpots_audit")
    except SystemExit as exit_:
        return exit_.code, capsys.readouterr().out
    return 0, capsys.readouterr().out


@pytest.fixture
def played(linked):
    _, machines, level = linked
    for i in range(12):
        GameEventFactory(machine=machines[i % 4], wager_cents=450 + i)
    JackpotEventFactory(machine=machines[2], level_id=level.id, amount_cents=1)
    GameEventFactory(machine=machines[1], wager_cents=900)
    contributions_apply(batch_size=5)
    return linked


def test_clean_audit_exits_0(played, capsys):
    assert _run(capsys) == (0, "Audit clean: 1 levels.\n")


def test_a_tampered_level_exits_1_with_the_discrepancy(played, capsys):
    _, _, level = played
    Level.objects.filter(pk=level.pk).update(current_mc=F("current_mc") + 1_000)
    code, out = _run(capsys)
    assert code == 1
    level.refresh_from_db()
    expected = f"current is {level.current_mc}, the ledger gives {level.current_mc - 1000}"
    assert f"DISCREPANCY level {level.id}: {expected}" in out
    assert "1 discrepancies in 1 levels." in out


def test_a_changed_raw_event_is_found(played, capsys):
    _, machines, level = played
    event = (
        MachineEvent.objects.filter(machine=machines[0], type=MachineEvent.Type.GAME).order_by("id").first()
    )
    MachineEvent.objects.filter(pk=event.pk).update(wager_cents=F("wager_cents") + 100)
    code, out = _run(capsys)
    assert code == 1
    assert "the raw events give" in out
    assert f"level {level.id}" in out


def test_an_event_unmarked_from_its_batch_is_found(played, capsys):
    _, machines, _ = played
    event = MachineEvent.objects.filter(machine=machines[0]).order_by("id").first()
    MachineEvent.objects.filter(pk=event.pk).update(applied_at=None)
    code, out = _run(capsys)
    assert code == 1
    assert "carry its mark" in out


def test_a_hit_paid_more_than_its_ledger_row_is_found(played, capsys):
    _, _, level = played
    hit = level.hit_records.get()
    type(hit).objects.filter(pk=hit.pk).update(amount_cents=F("amount_cents") + 1)
    code, out = _run(capsys)
    assert code == 1
    assert f"its hits were paid {(hit.amount_cents + 1) * 1000} mc" in out
