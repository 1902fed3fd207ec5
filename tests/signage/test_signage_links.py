"""The API's ``link`` and the sign's link frames come from one selector and always agree."""

from __future__ import annotations

from decimal import Decimal

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.utils import timezone

from jackpots.models import ProgressiveMachine
from slots.models import MachineEvent, SlotMachine
from tests.factories import ProgressiveMachineFactory, SlotMachineFactory
from tests.signage.helpers import SOCKET_TESTS, SignSetup, pending_event_add
from tests.signage.test_signage_consumer import link_frame, open_sign

pytestmark = SOCKET_TESTS


@pytest.fixture(autouse=True)
def fast_link_checks(quiet_signs, settings) -> None:
    settings.SIGNAGE_LINK_CHECK_SECONDS = Decimal("0.05")
    settings.LINK_STALE_AFTER_SECONDS = 10


@database_sync_to_async
def api_links(progressive_id: int, field: str = "link") -> tuple[str, str]:
    """The link (or another ``field``) as the list and the detail of GET /api/v1/jackpots show it."""
    listed = {item["id"]: item[field] for item in Client().get("/api/v1/jackpots").json()}
    detail = Client().get(f"/api/v1/jackpots/{progressive_id}").json()[field]
    return listed[progressive_id], detail


@database_sync_to_async
def second_member(setup: SignSetup) -> SlotMachine:
    machine = SlotMachineFactory(asset_number="NOG-0105", room=setup.screen.room)
    ProgressiveMachineFactory(progressive=setup.progressive, machine=machine)
    return machine


@database_sync_to_async
def machines_set(status: str, *asset_numbers: str) -> None:
    SlotMachine.objects.filter(asset_number__in=asset_numbers).update(status=status)


async def test_api_and_sign_go_down_with_every_member_offline_and_up_with_one_back(
    sign_setup: SignSetup,
) -> None:
    await second_member(sign_setup)
    pid = sign_setup.progressive.id
    sign = await open_sign(sign_setup)
    assert (await sign.receive_json_from(timeout=3))["jackpots"][0]["link"] == "up"
    assert await api_links(pid) == ("up", "up")

    await machines_set(SlotMachine.Status.OFFLINE, "NOG-0104")  # one of two still in service
    assert await sign.receive_nothing(timeout=0.3)
    assert await api_links(pid) == ("up", "up")

    await machines_set(SlotMachine.Status.OFFLINE, "NOG-0105")
    assert await sign.receive_json_from(timeout=3) == link_frame(2, pid, "down")
    assert await api_links(pid) == ("down", "down")

    await machines_set(SlotMachine.Status.IN_SERVICE, "NOG-0105")
    assert await sign.receive_json_from(timeout=3) == link_frame(3, pid, "up")
    assert await api_links(pid) == ("up", "up")
    await sign.disconnect()


async def test_a_disabled_membership_does_not_keep_the_link_up(sign_setup: SignSetup) -> None:
    await second_member(sign_setup)
    pid = sign_setup.progressive.id
    await database_sync_to_async(ProgressiveMachine.objects.filter(machine__asset_number="NOG-0105").update)(
        enabled=False
    )
    sign = await open_sign(sign_setup)
    await sign.receive_json_from(timeout=3)
    await machines_set(SlotMachine.Status.OFFLINE, "NOG-0104")
    assert await sign.receive_json_from(timeout=3) == link_frame(2, pid, "down")
    assert await api_links(pid) == ("down", "down")
    await sign.disconnect()


async def test_api_and_sign_go_down_on_stale_pending_events_and_up_once_applied(
    sign_setup: SignSetup,
) -> None:
    pid = sign_setup.progressive.id

    sign = await open_sign(sign_setup)
    await sign.receive_json_from(timeout=3)
    event = await database_sync_to_async(pending_event_add)("NOG-0104", 11)
    assert await sign.receive_json_from(timeout=3) == link_frame(2, pid, "down")
    assert await api_links(pid) == ("down", "down")

    await database_sync_to_async(MachineEvent.objects.filter(pk=event.pk).update)(
        pending=False, applied_at=timezone.now()
    )
    assert await sign.receive_json_from(timeout=3) == link_frame(3, pid, "up")
    assert await api_links(pid) == ("up", "up")
    await sign.disconnect()
