"""Fixtures of the signage tests: a screen with its token, showing one progressive with two levels."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from common.credentials import screen_token_issue
from floor.models import SignageScreen
from jackpots import publish
from jackpots.models import Hit, Level, Progressive
from slots.models import MachineEvent, SlotMachine
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


@pytest.fixture
def quiet_signs(settings) -> None:
    """Heartbeats and link checks far apart, unless a test asks otherwise."""
    settings.SIGNAGE_HEARTBEAT_SECONDS = Decimal("5")
    settings.SIGNAGE_LINK_CHECK_SECONDS = Decimal("5")
    settings.SIGNAGE_MAX_UPDATES_PER_SECOND = Decimal("4")


# The marks of every test that opens a sign's websocket.
SOCKET_TESTS = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_db_in_worker_thread", "quiet_signs"),
]


def pending_event_add(asset_number: str, age_seconds: int) -> MachineEvent:
    """A game event of the machine, received ``age_seconds`` ago and not yet applied by the engine."""
    at = timezone.now() - timedelta(seconds=age_seconds)
    return MachineEvent.objects.create(
        machine=SlotMachine.objects.get(asset_number=asset_number),
        seq=1,
        type=MachineEvent.Type.GAME,
        at=at,
        received_at=at,
        digest="0" * 40,
        payload={"wager": 450, "win": 0},
        wager_cents=450,
        win_cents=0,
        pending=True,
    )


def hit_record_and_announce(level: Level, asset_number: str, amount_cents: int, level_seq: int) -> Hit:
    hit = Hit.objects.create(
        level=level,
        machine=SlotMachine.objects.get(asset_number=asset_number),
        at=timezone.now(),
        amount_cents=amount_cents,
        level_seq=level_seq,
        cycle=1,
    )
    publish.hit_announced(hit.id)
    return hit
