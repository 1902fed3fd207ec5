"""Fixtures of the signage tests: a screen with its token, showing one progressive with two levels."""

from __future__ import annotations

from decimal import Decimal

import pytest

from common.credentials import screen_token_issue
from tests.factories import (
    LevelFactory,
    ProgressiveFactory,
    ProgressiveMachineFactory,
    SignageScreenFactory,
    SlotMachineFactory,
)
from tests.signage.helpers import SignSetup


@pytest.fixture
def sign_setup(transactional_db) -> SignSetup:
    progressive = ProgressiveFactory(name="Diamond Vault")
    grand = LevelFactory(progressive=progressive, name="Grand", position=1, current_mc=152_347_999, seq=7)
    minor = LevelFactory(
        progressive=progressive, name="Minor", position=2, reset_mc=10_000_000, current_mc=10_500_000, seq=3
    )
    machine = SlotMachineFactory(asset_number="NOG-0104")
    ProgressiveMachineFactory(progressive=progressive, machine=machine)
    screen = SignageScreenFactory(slug="nog-1", venue=machine.room.venue, room=machine.room)
    screen.progressives.add(progressive)
    token = screen_token_issue(screen)
    return SignSetup(screen, token, progressive, grand, minor, machine.asset_number)


@pytest.fixture
async def close_db_in_worker_thread():
    """Consumers read through a worker thread; its connection must close before the test database is
    dropped."""
    yield
    from asgiref.sync import sync_to_async
    from django.db import connections

    await sync_to_async(connections.close_all)()


@pytest.fixture
def quiet_signs(settings) -> None:
    """No heartbeat within a test and link checks far apart, unless a test asks otherwise: the frame a test
    waits for is the next one however slow the machine (5 s heartbeats came first under load), so its
    ``n`` and a silence stay exact. Outside the setting's range (at most 5 s), which binds deployments."""
    settings.SIGNAGE_HEARTBEAT_SECONDS = Decimal("3600")
    settings.SIGNAGE_LINK_CHECK_SECONDS = Decimal("5")
    settings.SIGNAGE_MAX_UPDATES_PER_SECOND = Decimal("4")


# The table rounds some signs show are played years ahead, as in the engine's tests (that fixture's why).
from tests.jackpots.conftest import _tables_play_ahead_of_the_clock  # noqa: E402, F401
