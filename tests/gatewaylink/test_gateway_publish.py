"""gatewaylink hears of the engine's hits through ``jackpots.hooks`` itself (GatewaylinkConfig.ready): a
mystery award and a handpay reset reach the venue's gateway whatever the signs are sent."""

from __future__ import annotations

from channels.db import database_sync_to_async

from gatewaylink import publish
from jackpots.hooks import hooks
from tests.gatewaylink.helpers import SOCKET_TESTS, Floor, gateway_open, mystery_hit

pytestmark = SOCKET_TESTS


def test_the_app_registers_its_listeners_once():
    assert hooks.hit_announced.count(publish.hit_announced) == 1
    assert hooks.hit_paid.count(publish.hit_paid) == 1


async def test_an_award_needs_no_listener_of_the_signs(floor: Floor, monkeypatch):
    monkeypatch.setattr(hooks, "hit_announced", [publish.hit_announced])
    ws = await gateway_open(floor.path)
    await ws.receive_json_from(timeout=5)
    hit = await database_sync_to_async(mystery_hit)(floor.minor, floor.sas1, 10_525)
    # Only the award: the signs' WIN frame was not sent, nothing else waited on it.
    assert await ws.receive_json_from(timeout=5) == {
        "type": "award",
        "award": hit.id,
        "machine": "NOG-0101",
        "amount": 10_525,
    }
    assert await ws.receive_nothing(timeout=0.3)
    await ws.disconnect()


async def test_a_mystery_hit_off_sas_sends_no_command(floor: Floor, monkeypatch):
    monkeypatch.setattr(hooks, "hit_announced", [publish.hit_announced])
    ws = await gateway_open(floor.path)
    await ws.receive_json_from(timeout=5)
    await database_sync_to_async(mystery_hit)(floor.minor, floor.plain, 10_525)
    assert await ws.receive_nothing(timeout=0.5)
    await ws.disconnect()
