"""Fixtures of the engine's tests."""

from __future__ import annotations

from decimal import Decimal

import pytest

from jackpots.services import core
from jackpots.services.levels import level_create
from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, SlotMachineFactory

GRAND = core.Params(reset_mc=100_000_000, rate=Decimal("0.01"), reserve_rate=Decimal("0.002"))


def progressive_with_machines(count: int, name: str = "Diamond Vault", **fields):
    progressive = ProgressiveFactory(name=name, **fields)
    machines = [SlotMachineFactory() for _ in range(count)]
    for machine in machines:
        ProgressiveMachineFactory(progressive=progressive, machine=machine)
    return progressive, machines


@pytest.fixture
def linked(db):
    """A linked progressive of 4 machines with one level: reset €1,000, rate 1%, reserve 0.2%."""
    progressive, machines = progressive_with_machines(4)
    level = level_create(progressive, name="Grand", position=1, params=GRAND)
    return progressive, machines, level


# Staff in each role, for the admin tests (the same fixtures as the floor's).
from tests.floor.staff import attendant, auditor, manager, manager2, plain_staff  # noqa: E402, F401
