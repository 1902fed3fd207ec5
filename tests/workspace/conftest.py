"""Workspace test fixtures: staff in each role (tests/floor/staff.py) and a hit waiting on a machine."""

from __future__ import annotations

import pytest

from jackpots.services import level_hit
from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, SlotMachineFactory
from tests.floor.staff import attendant, auditor, level_seeded, manager, manager2, plain_staff  # noqa: F401


def hit_on(asset: str, reset_mc: int, name: str = "Grease Grand"):
    """A hit of ``reset_mc`` (the level's amount right after seeding) on a new machine ``asset``."""
    machine = SlotMachineFactory(asset_number=asset, game_title="Grease")
    progressive = ProgressiveFactory(name=name)
    ProgressiveMachineFactory(progressive=progressive, machine=machine)
    level = level_seeded(progressive=progressive, reset_mc=reset_mc)
    return level_hit(level.pk, machine_id=machine.pk)


@pytest.fixture
def small_hit(db):
    """€500.00: under the two-person threshold (€1,200)."""
    return hit_on("NOG-0104", 50_000_000, "Diamond Vault")


@pytest.fixture
def big_hit(db):
    """€5,000.60: at or above the threshold, two people verify."""
    return hit_on("NOG-0005", 500_060_000)
