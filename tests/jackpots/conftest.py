"""Fixtures of the engine's tests."""

from __future__ import annotations

from decimal import Decimal

import pytest

from jackpots.services import core
from tests.factories import LevelFactory, ProgressiveFactory, ProgressiveMachineFactory, SlotMachineFactory


def level_seeded(**fields):
    """A level in its first cycle, seeded through the core so its ledger and state agree."""
    from jackpots.models import LedgerEntry
    from jackpots.services.levels import ledger_entry, level_params, level_state_save, trigger_draw

    level = LevelFactory(**fields)
    params = level_params(level)
    state, movement = core.seed(params, trigger_draw(params))
    level_state_save(level, state)
    ledger_entry(
        level, LedgerEntry.Kind.SEED, movement, state, at=level.progressive.created_at, params=params
    ).save()
    return level


@pytest.fixture
def linked(db):
    """A linked progressive of 4 machines with one level: reset €1,000, rate 1%, reserve 0.2%."""
    progressive = ProgressiveFactory(name="Diamond Vault")
    machines = [SlotMachineFactory() for _ in range(4)]
    for machine in machines:
        ProgressiveMachineFactory(progressive=progressive, machine=machine)
    level = level_seeded(progressive=progressive, rate=Decimal("0.01"), reserve_rate=Decimal("0.002"))
    return progressive, machines, level


# Staff in each role, for the admin tests (the same fixtures as the floor's).
from tests.floor.staff import attendant, auditor, manager, manager2, plain_staff  # noqa: E402, F401
