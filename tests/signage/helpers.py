"""Plain helpers of the signage tests (the fixtures are in conftest.py)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from floor.models import SignageScreen
from jackpots.models import Hit, Level, Progressive
from signage import publish
from slots.models import MachineEvent, SlotMachine

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


# The marks of every test that opens a sign's websocket.
SOCKET_TESTS = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_db_in_worker_thread", "quiet_signs"),
]


SIGN_SCRIPT = Path(__file__).resolve().parents[2] / "signage" / "static" / "signage" / "signage.js"


def offline_warn_seconds() -> float:
    """How long a sign goes without a frame before it says its amounts may be stale, as signage.js has it."""
    found = re.search(r"OFFLINE_WARN_MS = (\d+);", SIGN_SCRIPT.read_text())
    assert found is not None, "signage.js no longer names OFFLINE_WARN_MS"
    return int(found[1]) / 1000


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


async def receive_until(communicator: WebsocketCommunicator, kind: str, timeout: float = 3) -> list[dict]:
    """Frames up to and including the first of type ``kind``."""
    frames = []
    deadline = time.monotonic() + timeout
    while True:
        frame = await communicator.receive_json_from(timeout=max(0.01, deadline - time.monotonic()))
        frames.append(frame)
        if frame["type"] == kind:
            return frames
