"""Each screen's connection state and last frame time, as the workspace's sign preview reads them
(``screens_status``): written by the sign server on connect and disconnect and once per link check."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from decimal import Decimal

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from signage.models import ScreenPresence
from signage.selectors import screens_status
from signage.services import screen_presence_frames
from tests.factories import SignageScreenFactory
from tests.signage.helpers import SignSetup
from tests.signage.test_signage_consumer import open_sign


def status_by_slug(venue_id: int) -> dict[str, tuple[str, int]]:
    return {screen["slug"]: (screen["state"], screen["connections"]) for screen in screens_status(venue_id)}


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_in_worker_thread", "quiet_signs")
async def test_a_sign_is_live_while_connected_and_offline_once_it_leaves(
    sign_setup: SignSetup, settings
) -> None:
    # Live while the last frame is at most 2.1 s old (two checks and a heartbeat): a loaded machine too.
    settings.SIGNAGE_LINK_CHECK_SECONDS = Decimal("0.05")
    settings.SIGNAGE_HEARTBEAT_SECONDS = Decimal("2")
    venue_id = sign_setup.screen.venue_id
    await database_sync_to_async(SignageScreenFactory)(slug="nog-9", venue=sign_setup.screen.venue)
    assert await database_sync_to_async(status_by_slug)(venue_id) == {
        "nog-1": ("never", 0),
        "nog-9": ("never", 0),
    }

    sign = await open_sign(sign_setup)
    other = await open_sign(sign_setup)
    assert (await sign.receive_json_from(timeout=3))["type"] == "snapshot"
    await other.receive_json_from(timeout=3)
    # The presence is written just after the snapshot (a sign never waits for a write to show its amounts).
    for _ in range(100):
        status = await database_sync_to_async(status_by_slug)(venue_id)
        if status["nog-1"] == ("live", 2):
            break
        await asyncio.sleep(0.02)
    assert status == {"nog-1": ("live", 2), "nog-9": ("never", 0)}
    presence = await database_sync_to_async(ScreenPresence.objects.get)(screen=sign_setup.screen)
    connected_at = presence.last_frame_at

    # A heartbeat goes out; the next link check records its time.
    assert (await sign.receive_json_from(timeout=5))["type"] == "heartbeat"
    for _ in range(100):
        presence = await database_sync_to_async(ScreenPresence.objects.get)(screen=sign_setup.screen)
        if presence.last_frame_at > connected_at:
            break
        await asyncio.sleep(0.05)
    assert presence.last_frame_at > connected_at
    assert timezone.now() - presence.last_frame_at < timedelta(seconds=3)

    await other.disconnect()
    assert await database_sync_to_async(status_by_slug)(venue_id) == {
        "nog-1": ("live", 1),
        "nog-9": ("never", 0),
    }
    await sign.disconnect()
    assert await database_sync_to_async(status_by_slug)(venue_id) == {
        "nog-1": ("offline", 0),
        "nog-9": ("never", 0),
    }
    presence = await database_sync_to_async(ScreenPresence.objects.get)(screen=sign_setup.screen)
    assert presence.disconnected_at >= presence.last_frame_at


@pytest.mark.django_db
def test_a_connection_with_no_recent_frame_is_silent(settings) -> None:
    settings.SIGNAGE_LINK_CHECK_SECONDS = Decimal("2")
    settings.SIGNAGE_HEARTBEAT_SECONDS = Decimal("4")
    screen = SignageScreenFactory(slug="ven-1")
    now = timezone.now()
    presence = ScreenPresence.objects.create(
        screen=screen, connections=1, connected_at=now, last_frame_at=now
    )
    assert [(s["slug"], s["state"], s["last_frame_at"]) for s in screens_status(screen.venue_id)] == [
        ("ven-1", "live", now)
    ]
    # Two link checks and a heartbeat (8 s) without a frame: the server that held it died or hangs.
    ScreenPresence.objects.filter(pk=presence.pk).update(
        last_frame_at=now - timedelta(seconds=8, milliseconds=1)
    )
    assert [s["state"] for s in screens_status(screen.venue_id)] == ["silent"]
    ScreenPresence.objects.filter(pk=presence.pk).update(last_frame_at=now - timedelta(seconds=7))
    assert [s["state"] for s in screens_status(screen.venue_id)] == ["live"]


@pytest.mark.django_db
def test_a_process_writes_its_screens_last_frames_in_one_statement(django_assert_num_queries) -> None:
    screens = [SignageScreenFactory(slug=f"nog-{n}") for n in range(1, 4)]
    for screen in screens:
        ScreenPresence.objects.create(screen=screen, connections=1)
    elsewhere = SignageScreenFactory(slug="nog-9")
    ScreenPresence.objects.create(screen=elsewhere, connections=1)
    now = timezone.now()
    frames = {screen.id: now - timedelta(seconds=n) for n, screen in enumerate(screens)}

    with django_assert_num_queries(1):
        screen_presence_frames(frames)

    written = dict(ScreenPresence.objects.values_list("screen_id", "last_frame_at"))
    assert written == {**frames, elsewhere.id: None}
