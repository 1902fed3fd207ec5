"""The floor map's socket over the real server (issue 28, finding 8): a path of another form is refused at
the handshake, never a 500; an unknown room closes with 4404, which the page can read (a close before the
accept became the server's HTTP 403 and lost the code)."""

from __future__ import annotations

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from tests.factories import RoomFactory, VenueFactory
from tests.floor.staff import manager  # noqa: F401
from tests.served import admin_login, dockerfile_server  # noqa: F401

pytestmark = pytest.mark.postgres


def floor_socket(url: str, path: str, cookie: str):
    return connect(
        url.replace("http://", "ws://") + path,
        additional_headers={"Cookie": cookie, "Origin": url},
        open_timeout=10,
    )


@pytest.fixture
def signed_in(dockerfile_server, manager) -> tuple[str, str]:  # noqa: F811
    RoomFactory(venue=VenueFactory(code="NOG"), number=1)
    status, session = admin_login(dockerfile_server, "manager", "pw-manager")
    assert status == 302
    return dockerfile_server, "; ".join(f"{k}={v}" for k, v in session.cookies.items())


def test_a_known_room_is_served(signed_in) -> None:
    url, cookie = signed_in
    with floor_socket(url, "/ws/floor/NOG/1/", cookie) as socket:
        assert '"type": "snapshot"' in socket.recv(timeout=10)


def test_an_unknown_room_closes_with_4404(signed_in) -> None:
    url, cookie = signed_in
    with floor_socket(url, "/ws/floor/NOG/7/", cookie) as socket, pytest.raises(ConnectionClosed) as closed:
        socket.recv(timeout=10)
    assert closed.value.rcvd.code == 4404


@pytest.mark.parametrize("room", ["9" * 5000, "123456", "%D9%A3", "٣", "1%20"])
def test_a_room_number_of_another_form_is_refused_at_the_handshake(signed_in, room) -> None:
    url, cookie = signed_in
    with pytest.raises(InvalidStatus) as refused:
        floor_socket(url, f"/ws/floor/NOG/{room}/", cookie)
    assert refused.value.response.status_code == 403
