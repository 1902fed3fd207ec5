"""Workspace test fixtures: staff in each role (tests/floor/staff.py) and a hit waiting on a machine."""

from __future__ import annotations

import pytest

from tests.workspace.helpers import hit_on


@pytest.fixture
def small_hit(db):
    """€500.00: under the two-person threshold (€1,200)."""
    return hit_on("NOG-0104", 50_000_000, "Diamond Vault")


@pytest.fixture
def big_hit(db):
    """€5,000.60: at or above the threshold, two people verify."""
    return hit_on("NOG-0005", 500_060_000)
