"""The venue gateway's link in the significant-events register: up when its connection is accepted, down
when it ends; a refused key writes nothing."""

from __future__ import annotations

from channels.db import database_sync_to_async

from floor.models import SignificantEvent
from tests.gatewaylink.helpers import SOCKET_TESTS, Floor, gateway_open

pytestmark = SOCKET_TESTS


def links() -> list[tuple]:
    return list(
        SignificantEvent.objects.filter(kind__in=["link_up", "link_down"])
        .order_by("id")
        .values_list("kind", "venue_id", "subject", "user_id", "detail")
    )


async def test_connect_and_disconnect_write_link_up_and_down(floor: Floor):
    venue = floor.sas1.room.venue
    ws = await gateway_open(floor.path)
    assert (await ws.receive_json_from(timeout=5))["type"] == "snapshot"
    assert await database_sync_to_async(links)() == [
        ("link_up", venue.pk, "Gateway NOG", None, "Gateway connected: amounts and awards flow again.")
    ]
    await ws.disconnect(code=1006)
    assert await database_sync_to_async(links)() == [
        ("link_up", venue.pk, "Gateway NOG", None, "Gateway connected: amounts and awards flow again."),
        ("link_down", venue.pk, "Gateway NOG", None, "Gateway connection lost (close code 1006)."),
    ]


async def test_a_refused_key_writes_nothing(floor: Floor):
    ws = await gateway_open("/ws/gateway/?token=pv_gw_not-a-key")
    assert await ws.receive_output(timeout=1) == {"type": "websocket.close", "code": 4401}
    await ws.disconnect()
    assert await database_sync_to_async(links)() == []
