"""Whatever a client sends over a websocket, the server refuses or ignores it: an unknown path is refused
at the handshake (the router used to raise, which the server answers with a 500), and the floor map
survives frames that are not JSON."""

from __future__ import annotations

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from config.routing import websocket_urlpatterns
from tests.factories import RoomFactory, VenueFactory
from tests.workspace.test_live import db_threads_closed  # noqa: F401


@pytest.mark.parametrize(
    "path",
    ["/ws/signage/\x00/", "/ws/signage/", "/ws/nothing/", "/ws/floor/NOG/x/", "/", "/ws/floor/\x00/1/"],
)
async def test_an_unknown_websocket_path_is_refused_at_the_handshake(path) -> None:
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    connected, _ = await communicator.connect()
    assert connected is False
    await communicator.wait()


@pytest.mark.django_db(transaction=True)
async def test_the_floor_map_ignores_frames_that_are_not_json(manager, db_threads_closed) -> None:  # noqa: F811
    from asgiref.sync import sync_to_async

    await sync_to_async(lambda: RoomFactory(venue=VenueFactory(code="NOG"), number=1))()
    communicator = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns), "/ws/floor/NOG/1/", headers=[(b"origin", b"http://testserver")]
    )
    communicator.scope["user"] = manager
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    assert (await communicator.receive_json_from(timeout=10))["type"] == "snapshot"
    await communicator.send_to(text_data="{not json")
    await communicator.send_to(bytes_data=b"\x00\xff")
    await communicator.send_to(text_data='{"type": "snapshot"}')
    assert await communicator.receive_nothing(0.2)
    await communicator.disconnect()  # re-raises what the consumer raised, if anything
