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


def _mystery_after_a_hit(monkeypatch) -> Level:
    """A mystery level whose second cycle opens at €1,000 + the reserve of the €50 that won the first."""
    import secrets
    from decimal import Decimal

    from jackpots.services import core
    from jackpots.services.levels import level_create
    from tests.jackpots.helpers import progressive_with_machines

    monkeypatch.setattr(secrets, "randbelow", lambda n: min(n - 1, 1_000))
    progressive, machines = progressive_with_machines(1)
    params = core.Params(100_000_000, Decimal("0.01"), Decimal("0.01"), limit_mc=110_000_000, mystery=True)
    level = level_create(progressive, name="Mystery", position=1, params=params)
    Level.objects.filter(pk=level.pk).update(trigger_mc=100_050_000)
    for _ in range(5):
        GameEventFactory(machine=machines[0], wager_cents=1_000)
    contributions_apply()
    level.refresh_from_db()
    assert (level.cycle, level.current_mc, level.trigger_mc) == (2, 100_050_000, 100_051_001)
    return level


def test_a_trigger_below_its_cycles_start_is_found(monkeypatch, capsys):
    level = _mystery_after_a_hit(monkeypatch)
    assert _run(capsys) == (0, "Audit clean: 1 levels.\n")
    # Where the earlier rule drew it: above the reset value, below the amount the cycle opened at.
    Level.objects.filter(pk=level.pk).update(trigger_mc=100_001_000)
    code, out = _run(capsys)
    assert code == 1
    assert (
        f"DISCREPANCY level {level.id}: the mystery trigger is missing or outside its cycle's range "
        "(start, limit)" in out
    )
    assert "100001000" not in out  # the audit never prints a trigger
    Level.objects.filter(pk=level.pk).update(trigger_mc=110_000_000)  # at the limit: never reached first
    assert _run(capsys)[0] == 1


def _meter_rows(machine, *rows) -> None:
    """Meter deltas as if stored: (seq, seconds after the first, coin_in value, delta, kind, review)."""
    from datetime import UTC, datetime, timedelta

    from slots.models import MeterDelta

    start = datetime(2026, 11, 21, 18, 0, tzinfo=UTC)
    for seq, seconds, value, delta, kind, review in rows:
        event = MachineEvent.objects.create(
            machine=machine,
            seq=seq,
            type=MachineEvent.Type.METERS,
            at=start + timedelta(seconds=seconds),
            received_at=start,
            digest=str(seq),
            payload={},
        )
        MeterDelta.objects.create(
            event=event,
            machine=machine,
            name="coin_in",
            value=value,
            delta=delta,
            kind=kind,
            at=event.at,
            review=review,
        )


def test_an_unflagged_implausible_meter_jump_is_found(linked, capsys):
    _, machines, _ = linked
    machine = machines[0]  # max bet €4.50: in 10 s at most 11 games, 9,900 cents with the margin
    _meter_rows(
        machine,
        (1, 0, 1_000_450, 0, "baseline", ""),
        (2, 10, 1_010_350, 9_900, "increment", ""),
        (3, 20, 9_000_000_000, 8_998_989_650, "increment", "pending"),
    )
    assert _run(capsys) == (0, "Audit clean: 1 levels.\n")
    _meter_rows(machine, (4, 30, 9_000_009_901, 9_901, "increment", ""))
    code, out = _run(capsys)
    assert code == 1
    assert (
        f"DISCREPANCY events: {machine.asset_number} meter coin_in at seq 4: +9901 is beyond the plausible "
        "+9900 and is not flagged for review" in out
    )
