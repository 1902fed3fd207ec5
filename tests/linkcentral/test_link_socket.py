"""The link's socket, /ws/link/ (docs/wide-area.md "Down: the pool"), through the link's own routing and
the real channel layer: the site's key at connect, a snapshot per pool, a frame at every change of the
pool's value after the engine's commit, awards, heartbeats, and a revoked key closed at once."""

from __future__ import annotations

from decimal import Decimal

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from common.credentials import credentials_revoke
from jackpots.hooks import hit_announced_on_commit, levels_changed_on_commit
from jackpots.models import Hit, HitKind, Level, Progressive
from jackpots.services import core
from jackpots.services.levels import level_create
from linkcentral.models import LinkAward, LinkedPool, LinkMember, LinkSiteKey
from linkcentral.publish import award_announce
from linkcentral.routing import websocket_urlpatterns
from tests.factories import ProgressiveFactory
from tests.linkcentral.api_factories import RESET_MC, Link, award_make, claim_entry, link_ready

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_in_worker_thread")]

application = URLRouter(websocket_urlpatterns)


@pytest.fixture
async def close_db_in_worker_thread():
    yield
    from asgiref.sync import sync_to_async
    from django.db import connections

    await sync_to_async(connections.close_all)()


@pytest.fixture
def link(settings) -> Link:
    # No heartbeat within a test unless it asks: the frame a test waits for is the next one.
    settings.LINK_HEARTBEAT_SECONDS = 3600
    return link_ready()


async def opened(key: str | None) -> WebsocketCommunicator:
    headers = [] if key is None else [(b"authorization", f"Bearer {key}".encode())]
    communicator = WebsocketCommunicator(application, "/ws/link/", headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    return communicator


def without_at(frame: dict) -> dict:
    assert frame.pop("at")
    return frame


def level_moves(level_id: int, current_mc: int, seq: int) -> None:
    """As the engine's level write does: the level changes, then its listeners hear of it after commit."""
    Level.objects.filter(pk=level_id).update(current_mc=current_mc, seq=seq)
    levels_changed_on_commit([level_id])


async def test_a_site_gets_its_pools_at_once_then_each_change(link: Link):
    ws = await opened(link.chx_key)
    snapshot = without_at(await ws.receive_json_from(timeout=5))
    assert snapshot == {
        "type": "pool",
        "pool": "JUMBO7",
        "amount_mc": RESET_MC,
        "currency": "EUR",
        "value_seq": 1,
    }
    await database_sync_to_async(level_moves)(link.level.pk, 500_123_456, 2)
    change = without_at(await ws.receive_json_from(timeout=5))
    assert change == {
        "type": "pool",
        "pool": "JUMBO7",
        "amount_mc": 500_123_456,
        "currency": "EUR",
        "value_seq": 2,
    }
    assert await ws.receive_nothing(timeout=0.2)
    await ws.disconnect()


async def test_an_older_value_than_the_one_sent_is_not_sent(link: Link):
    ws = await opened(link.chx_key)
    await ws.receive_json_from(timeout=5)
    await database_sync_to_async(level_moves)(link.level.pk, 500_000_001, 1)  # the snapshot's seq again
    assert await ws.receive_nothing(timeout=0.3)
    await ws.disconnect()


def other_pool() -> LinkedPool:
    """A pool only NOG plays, with its own level."""
    progressive = ProgressiveFactory(name="Other", kind=Progressive.Kind.WIDE_AREA, currency="EUR")
    level = level_create(progressive, name="Other", position=1, params=core.Params(100_000, Decimal("0.1")))
    pool = LinkedPool.objects.create(code="OTHER", level=level)
    LinkMember.objects.create(
        pool=pool, site=LinkMember.objects.get(site__code="NOG", pool__code="JUMBO7").site
    )
    return pool


async def test_a_site_hears_nothing_of_a_pool_it_is_not_in(link: Link):
    pool = await database_sync_to_async(other_pool)()
    chx = await opened(link.chx_key)
    nog = await opened(link.nog_key)
    assert (await chx.receive_json_from(timeout=5))["pool"] == "JUMBO7"
    assert sorted([(await nog.receive_json_from(timeout=5))["pool"] for _ in range(2)]) == ["JUMBO7", "OTHER"]
    await database_sync_to_async(level_moves)(pool.level_id, 200_000, 2)
    assert without_at(await nog.receive_json_from(timeout=5)) == {
        "type": "pool", "pool": "OTHER", "amount_mc": 200_000, "currency": "EUR", "value_seq": 2,
    }  # fmt: skip
    assert await chx.receive_nothing(timeout=0.3)
    await chx.disconnect()
    await nog.disconnect()


async def test_an_award_is_announced_to_the_pools_sites(link: Link):
    ws = await opened(link.chx_key)
    await ws.receive_json_from(timeout=5)

    def decided():
        entry = claim_entry(link, link.chx_member, 1, [(2, 500)])
        award = award_make(link, 1_000_000, [(entry, 2, 1_000_000, 935)])
        award_announce(award)
        return award.pk

    award_id = await database_sync_to_async(decided)()
    assert await ws.receive_json_from(timeout=5) == {"type": "award", "pool": "JUMBO7", "id": award_id}
    await ws.disconnect()


async def test_the_hit_of_a_link_award_is_announced_as_the_award(link: Link):
    """The apply service records the award's Hit through the engine: its announcement is the site's cue."""
    ws = await opened(link.chx_key)
    await ws.receive_json_from(timeout=5)

    def recorded():
        hit = Hit.objects.create(
            level=link.level, at=timezone.now(), amount_cents=10_000, level_seq=2, cycle=1, kind=HitKind.TABLE
        )
        entry = claim_entry(link, link.chx_member, 1, [(2, 500)])
        award = award_make(link, 10_000_000, [(entry, 2, 10_000_000, 9350)])
        LinkAward.objects.filter(pk=award.pk).update(hit=hit)
        hit_announced_on_commit(hit.pk)  # outside a transaction: at once
        return award.pk

    award_id = await database_sync_to_async(recorded)()
    assert await ws.receive_json_from(timeout=5) == {"type": "award", "pool": "JUMBO7", "id": award_id}
    await ws.disconnect()


@pytest.mark.parametrize("key", [None, "", "pv_site_unknown"])
async def test_without_a_valid_key_the_socket_is_closed_4401(link: Link, key):
    ws = await opened(key)
    assert await ws.receive_output(timeout=2) == {"type": "websocket.close", "code": 4401}


async def test_a_revoked_key_closes_its_socket_at_once_and_is_refused_after(link: Link):
    ws = await opened(link.chx_key)
    await ws.receive_json_from(timeout=5)
    await database_sync_to_async(credentials_revoke)(LinkSiteKey.objects.filter(site__code="CHX"))
    assert await ws.receive_output(timeout=5) == {"type": "websocket.close", "code": 4401}
    again = await opened(link.chx_key)
    assert await again.receive_output(timeout=2) == {"type": "websocket.close", "code": 4401}


async def test_heartbeats_come_and_the_key_is_checked_at_each(link: Link, settings):
    settings.LINK_HEARTBEAT_SECONDS = Decimal("0.1")
    ws = await opened(link.chx_key)
    await ws.receive_json_from(timeout=5)
    beat = await ws.receive_json_from(timeout=5)
    assert (beat["type"], sorted(beat)) == ("heartbeat", ["at", "type"])
    # A site deactivated (no message is sent for it): the next heartbeat's check closes the socket.
    await database_sync_to_async(lambda: type(link.chx).objects.filter(pk=link.chx.pk).update(active=False))()
    while (output := await ws.receive_output(timeout=5))["type"] == "websocket.send":
        pass
    assert output == {"type": "websocket.close", "code": 4401}
