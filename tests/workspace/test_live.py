"""The live floor: machine states, the map and overview pages by role, the websocket and its pushes."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from asgiref.sync import sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.urls import reverse
from django.utils import timezone

from jackpots.models import Hit
from slots.models import MachineEvent, SlotMachine
from tests.factories import LevelFactory, RoomFactory, SlotMachineFactory, VenueFactory
from tests.staff_fixtures import game_event
from workspace.live import machines_changed
from workspace.live.selectors import machine_state
from workspace.routing import websocket_urlpatterns

NOW = datetime(2026, 11, 21, 20, 0, tzinfo=ZoneInfo("Europe/Rome"))


@pytest.mark.parametrize(
    ("fields", "state"),
    [
        ({"last_seen": NOW, "last_game_at": NOW - timedelta(seconds=5)}, "playing"),
        ({"last_seen": NOW, "last_game_at": NOW - timedelta(minutes=5)}, "idle"),
        ({"last_seen": NOW - timedelta(seconds=31)}, "offline"),
        ({"last_seen": None}, "offline"),
        ({"last_seen": NOW, "powered": False}, "offline"),
        ({"last_seen": NOW, "status": SlotMachine.Status.OUT_OF_SERVICE}, "offline"),
        ({"last_seen": NOW, "tilted": True}, "tilt"),
        ({"last_seen": NOW, "tilted": True, "handpay_locked": True}, "handpay"),
        ({"last_seen": None, "handpay_locked": True, "door_open": True}, "door_open"),
    ],
)
def test_machine_state(fields, state):
    assert machine_state(SlotMachine(**fields), NOW) == state


@pytest.fixture
def room(db):
    return RoomFactory(venue=VenueFactory(), number=1, name="Sala Uno")


@pytest.mark.parametrize(
    ("who", "status"), [("manager", 200), ("attendant", 200), ("auditor", 200), ("plain_staff", 403)]
)
def test_map_overview_and_panel_by_role(client, request, room, who, status):
    machine = SlotMachineFactory(room=room, asset_number="NOG-0101")
    client.force_login(request.getfixturevalue(who))
    for url in (
        reverse("workspace:map", args=["NOG", 1]),
        reverse("workspace:venue", args=["NOG"]),
        reverse("workspace:machine-panel", args=[machine.asset_number]),
    ):
        assert client.get(url).status_code == status


def test_unknown_room_is_404(client, manager, room):
    client.force_login(manager)
    assert client.get(reverse("workspace:map", args=["NOG", 9])).status_code == 404


def test_map_draws_machines_at_their_positions(client, manager, room):
    SlotMachineFactory(room=room, asset_number="NOG-0101", pos_x=3, pos_y=2, last_seen=timezone.now())
    client.force_login(manager)
    body = client.get(reverse("workspace:map", args=["NOG", 1])).content.decode()
    assert 'data-asset="NOG-0101"' in body
    assert "grid-column: 4; grid-row: 3;" in body
    assert 'data-state="idle"' in body


def test_overview_counts_players_and_todays_coin_in(client, manager, room):
    now = timezone.now()
    playing = SlotMachineFactory(room=room, last_seen=now, last_game_at=now)
    SlotMachineFactory(room=room, last_seen=now)
    MachineEvent.objects.bulk_create([game_event(playing, 1, now, 12_345, 0)])
    client.force_login(manager)
    body = client.get(reverse("workspace:venue", args=["NOG"])).content.decode()
    assert '<td class="num">2</td><td class="num">1</td>' in body
    assert "50%" in body
    assert "123.45" in body


def test_machine_panel_shows_meters_events_and_hits(client, manager, room):
    machine = SlotMachineFactory(room=room, asset_number="NOG-0101")
    now = timezone.now()
    meters = game_event(machine, 2, now, 1, 0)
    meters.type, meters.wager_cents, meters.win_cents = MachineEvent.Type.METERS, None, None
    meters.payload = {"meters": {"coin_in": 12345600, "games_played": 40213}}
    MachineEvent.objects.bulk_create([game_event(machine, 1, now, 450, 0), meters])
    Hit.objects.create(
        level=LevelFactory(), machine=machine, at=now, amount_cents=150_000, level_seq=1, cycle=1
    )
    client.force_login(manager)
    body = client.get(reverse("workspace:machine-panel", args=["NOG-0101"])).content.decode()
    assert "123,456.00" in body
    assert "40213" in body
    assert "€ 4.50 / € 0.00" in body
    # The meters under their names, in a fixed order, never the SAS keys.
    assert '<th>Coin in</th><td class="num">€ 123,456.00</td>' in body
    assert '<th>Games played</th><td class="num">40213</td>' in body
    assert "coin_in" not in body and "games_played" not in body
    assert "1,500.00" in body


@pytest.fixture
async def db_threads_closed():
    """database_sync_to_async keeps a connection in its worker thread: close it so the test database can
    be dropped at the end of the run."""
    yield
    from django.db import connections

    await sync_to_async(connections.close_all)()


def _communicator(user, path="/ws/floor/NOG/1/", origin: bytes | None = b"http://testserver"):
    headers = [] if origin is None else [(b"origin", origin)]
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path, headers=headers)
    communicator.scope["user"] = user
    return communicator


@pytest.mark.django_db(transaction=True)
async def test_socket_snapshot_then_push_after_commit(manager, room, db_threads_closed):
    machine = await sync_to_async(SlotMachineFactory)(
        room=room, asset_number="NOG-0101", last_seen=timezone.now()
    )
    communicator = _communicator(manager)
    connected, _ = await communicator.connect()
    assert connected
    snapshot = await communicator.receive_json_from()
    assert snapshot["type"] == "snapshot"
    assert [(tile["asset"], tile["state"]) for tile in snapshot["machines"]] == [("NOG-0101", "idle")]

    def door_opens() -> None:
        from django.db import transaction

        with transaction.atomic():
            SlotMachine.objects.filter(pk=machine.pk).update(door_open=True)
            machines_changed([machine.pk])

    await sync_to_async(door_opens)()
    update = await communicator.receive_json_from(timeout=3)
    assert update == {
        "type": "update",
        "machines": [
            {
                "id": machine.pk,
                "asset": "NOG-0101",
                "title": "Diamond Vault",
                "room": room.pk,
                "x": 0,
                "y": 0,
                "state": "door_open",
                "bank": machine.bank_id,
                "jackpot": False,
                "hit": False,
            }
        ],
    }
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_no_push_when_the_change_rolls_back(manager, room, db_threads_closed):
    machine = await sync_to_async(SlotMachineFactory)(room=room, last_seen=timezone.now())
    communicator = _communicator(manager)
    await communicator.connect()
    await communicator.receive_json_from()

    def rolled_back() -> None:
        from django.db import transaction

        with transaction.atomic():
            machines_changed([machine.pk])
            transaction.set_rollback(True)

    await sync_to_async(rolled_back)()
    assert await communicator.receive_nothing(timeout=0.3)
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("who", ["anonymous", "plain_staff", "wrong_origin", "no_room"])
async def test_socket_refused(request, room, who, db_threads_closed):
    from django.contrib.auth.models import AnonymousUser

    path, origin = "/ws/floor/NOG/1/", b"http://testserver"
    if who == "anonymous":
        user = AnonymousUser()
    elif who == "plain_staff":
        user = await sync_to_async(request.getfixturevalue)("plain_staff")
    else:
        user = await sync_to_async(request.getfixturevalue)("manager")
    if who == "wrong_origin":
        origin = b"http://evil.example"
    if who == "no_room":
        path = "/ws/floor/NOG/7/"
    communicator = _communicator(user, path, origin)
    connected, code = await communicator.connect()
    if who == "wrong_origin":  # refused at the handshake, nothing accepted
        assert (connected, code) == (False, 4403)
        return
    # Accepted, then closed with the code the page reads (a close before the accept is an HTTP 403).
    assert connected
    closed = await communicator.receive_output()
    assert closed == {"type": "websocket.close", "code": 4404 if who == "no_room" else 4403}


@pytest.mark.django_db(transaction=True)
async def test_socket_without_origin_is_served_on_the_session(manager, room, db_threads_closed):
    """Not a browser (browsers always send Origin): the session decides, as for the signs' token."""
    communicator = _communicator(manager, origin=None)
    connected, _ = await communicator.connect()
    assert connected
    assert (await communicator.receive_json_from())["type"] == "snapshot"
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_status_event_posted_through_the_api_reaches_the_map(manager, room, db_threads_closed):
    """The ingest announces status changes after its commit; the room's open maps get the new state."""
    import orjson
    from django.test import Client

    from common.credentials import credential_issue
    from slots.models import MachineKey

    def machine_with_key() -> tuple[SlotMachine, str]:
        machine = SlotMachineFactory(room=room, asset_number="NOG-0101", last_seen=timezone.now())
        return machine, credential_issue(MachineKey, kind="mach", machine=machine)[1]

    machine, key = await sync_to_async(machine_with_key)()
    communicator = _communicator(manager)
    assert (await communicator.connect())[0]
    assert (await communicator.receive_json_from())["type"] == "snapshot"
    event = {
        "machine": "NOG-0101",
        "seq": 1,
        "at": timezone.now().isoformat(),
        "type": "status",
        "status": "door_open",
    }

    def post() -> dict:
        response = Client().post(
            "/api/v1/events",
            orjson.dumps({"events": [event]}),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {key}",
        )
        return response.json()

    assert (await sync_to_async(post)())["accepted"] == 1
    update = await communicator.receive_json_from(timeout=5)
    assert update["type"] == "update"
    assert [(tile["id"], tile["state"]) for tile in update["machines"]] == [(machine.pk, "door_open")]
    await communicator.disconnect()
