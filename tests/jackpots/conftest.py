"""Fixtures of the engine's tests."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from jackpots.services.levels import level_create
from tests.jackpots.helpers import GRAND, progressive_with_machines
from tests.tables.factories import T0


@pytest.fixture(autouse=True)
def _tables_play_ahead_of_the_clock(settings) -> None:
    """The table rounds of these tests are played at T0, years ahead, so that the prize-sharing windows
    (which close by the server's clock) stay open whatever the day they run: the server's window reaches
    two days past T0 (the random rounds span hours). tests/tables/test_bounds sets the production window
    back."""
    settings.EVENT_MAX_FUTURE_SECONDS = int((T0 - datetime.now(UTC)).total_seconds()) + 2 * 24 * 3600


@pytest.fixture
def linked(db):
    """A linked progressive of 4 machines with one level: reset €1,000, rate 1%, reserve 0.2%."""
    progressive, machines = progressive_with_machines(4)
    level = level_create(progressive, name="Grand", position=1, params=GRAND)
    return progressive, machines, level


# Staff in each role, for the admin tests (the same fixtures as the floor's).
from tests.floor.staff import attendant, auditor, manager, manager2, plain_staff  # noqa: E402, F401
