"""The floor map's socket over the real server (issue 28, finding 8): a path of another form is refused at
the handshake, never a 500; an unknown room closes with 4404, which the page can read (a close before the
accept became the server's HTTP 403 and lost the code)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.management import call_command
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from tests.factories import RoomFactory, VenueFactory
from tests.floor.staff import _staff
from tests.served import admin_login, dockerfile_served

# django_db: the test database is set up for this module's shared fixture; the tests themselves only talk
# to the server.
pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def floor_socket(url: str, path: str, cookie: str):
    return connect(
        url.replace("http://", "ws://") + path,
        additional_headers={"Cookie": cookie, "Origin": url},
        open_timeout=10,
    )


@pytest.fixture(scope="module")
def signed_in(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[tuple[str, str]]:
    """One room and a signed-in manager, committed and served once for the module: its tests only open
    sockets, which write nothing (uvicorn's start and the login were 4-7 s of each test). Emptied after
    the last one as a transactional test's database is; the module's tests run together on one worker
    (tests/conftest.py)."""
    try:
        with django_db_blocker.unblock():
            RoomFactory(venue=VenueFactory(code="NOG"), number=1)
            _staff("manager", "Floor manager")
        with dockerfile_served(tmp_path_factory.mktemp("served")) as url:
            status, session = admin_login(url, "manager", "pw-manager")
            assert status == 302
            yield url, "; ".join(f"{k}={v}" for k, v in session.cookies.items())
    finally:
        with django_db_blocker.unblock():
            call_command("flush", verbosity=0, interactive=False)


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
