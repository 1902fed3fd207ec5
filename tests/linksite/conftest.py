"""Fixtures of the site's wide-area tests: the seeded tables' Jumbo 7 progressive played as a site of a
link's pool, and a table at a Swiss venue betting in francs."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.tables.factories import T0


@pytest.fixture(autouse=True)
def _tables_play_ahead_of_the_clock(settings) -> None:
    """Rounds are played at T0, years ahead, as in the tables' tests (their prize windows stay open)."""
    settings.EVENT_MAX_FUTURE_SECONDS = int((T0 - datetime.now(UTC)).total_seconds()) + 2 * 24 * 3600
