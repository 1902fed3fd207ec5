"""Fixtures of the signage tests: a screen with its token, showing one progressive with two levels."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from floor.credentials import screen_token_issue
from floor.models import SignageScreen
from jackpots.models import Level, Progressive
from tests.factories import (
    LevelFactory,
    ProgressiveFactory,
    ProgressiveMachineFactory,
    SignageScreenFactory,
    SlotMachineFactory,
)

ORIGIN = (b"origin", b"http://testserver")


@dataclass
class SignSetup:
    screen: SignageScreen
    token: str
    progressive: Progressive
    grand: Level
    minor: Level
    machine_asset: str

    @property
    def path(self) -> str:
        return f"/ws/signage/{self.screen.slug}/?token={self.token}"


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
