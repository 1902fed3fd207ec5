"""What the gateway tests share: a venue with two SAS machines (line-1, addresses 1 and 2) and one off
SAS, playing a progressive broadcast as SAS group 1 with a machine-triggered Grand and a mystery Minor."""

from __future__ import annotations

import time
from dataclasses import dataclass
from decimal import Decimal

import pytest
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from config.asgi import application
from jackpots.hooks import hit_announced_on_commit
from jackpots.models import Hit, HitKind, Level, Progressive
from jackpots.services import core
from jackpots.services.levels import level_create
from slots.models import SlotMachine
from slots.services.keys import gateway_key_issue
from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, RoomFactory, SlotMachineFactory


@dataclass
class Floor:
    token: str
    progressive: Progressive
    grand: Level
    minor: Level
    sas1: SlotMachine
    sas2: SlotMachine
    plain: SlotMachine

    @property
    def path(self) -> str:
        return f"/ws/gateway/?token={self.token}"


def sas_floor() -> Floor:
    room = RoomFactory()
    progressive = ProgressiveFactory(name="Diamond Vault", sas_group=1)
    grand = level_create(
        progressive,
        name="Grand",
        position=1,
        params=core.Params(reset_mc=100_000_000, rate=Decimal("0.01"), reserve_rate=Decimal("0.002")),
    )
    minor = level_create(
        progressive,
        name="Minor",
        position=2,
        params=core.Params(10_000_000, Decimal("0.01"), limit_mc=20_000_000, mystery=True),
    )
    Level.objects.filter(pk=grand.pk).update(sas_level=1, current_mc=152_347_999, seq=7)
    Level.objects.filter(pk=minor.pk).update(sas_level=2, current_mc=10_500_000, seq=3)
    grand.refresh_from_db()
    minor.refresh_from_db()
    sas1 = SlotMachineFactory(
        asset_number="NOG-0101",
        room=room,
        sas_line="line-1",
        sas_address=1,
        sas_group=1,
        sas_handpay_limit_cents=120_000,
    )
    sas2 = SlotMachineFactory(
        asset_number="NOG-0102",
        room=room,
        sas_line="line-1",
        sas_address=2,
        sas_group=1,
        denomination_cents=2,
        max_bet_cents=200,
    )
    plain = SlotMachineFactory(asset_number="NOG-0103", room=room)
    for machine in (sas1, sas2, plain):
        ProgressiveMachineFactory(progressive=progressive, machine=machine)
    token = gateway_key_issue(room.venue)[1]
    return Floor(token, progressive, grand, minor, sas1, sas2, plain)


SOCKET_TESTS = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_db_in_worker_thread", "slow_heartbeat"),
]


async def gateway_open(path: str, headers=None) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path, headers=headers or [])
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def receive_until(communicator: WebsocketCommunicator, *kinds: str, timeout: float = 10) -> list[dict]:
    """Frames up to and including the first of each type in ``kinds``, whatever their order (an award
    and the signs' WIN frame come from two listeners of the engine). The gateway's frames may wait for a
    heartbeat period or an engine run: a long default wait."""
    frames: list[dict] = []
    missing = set(kinds)
    deadline = time.monotonic() + timeout
    while missing:
        frame = await communicator.receive_json_from(timeout=max(0.01, deadline - time.monotonic()))
        frames.append(frame)
        missing.discard(frame["type"])
    return frames


def mystery_hit(level: Level, machine: SlotMachine, amount_cents: int, *, announce: bool = True) -> Hit:
    hit = Hit.objects.create(
        level=level,
        machine=machine,
        at=timezone.now(),
        amount_cents=amount_cents,
        level_seq=level.seq + 1,
        cycle=1,
        kind=HitKind.MYSTERY,
    )
    if announce:  # as the engine does once its transaction commits (at once outside one)
        hit_announced_on_commit(hit.id)
    return hit
