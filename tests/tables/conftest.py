"""Fixtures of the table games' tests."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.tables.factories import T0


@pytest.fixture(autouse=True)
def _tables_play_ahead_of_the_clock(settings) -> None:
    """The table rounds of these tests are played at T0, years ahead, so that the prize-sharing windows
    (which close by the server's clock) stay open whatever the day they run: the server's window reaches
    two days past T0 (the random rounds span hours). test_bounds sets the production window back."""
    settings.EVENT_MAX_FUTURE_SECONDS = int((T0 - datetime.now(UTC)).total_seconds()) + 2 * 24 * 3600


# The engine's fixtures the table tests use: a linked progressive, staff in each role.
from tests.floor.staff import attendant, auditor, manager, manager2, plain_staff  # noqa: E402, F401
from tests.jackpots.conftest import linked  # noqa: E402, F401
