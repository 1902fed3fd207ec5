"""The floor maps' pushes leave the request: a post only marks its machines, the pusher's thread reads and
sends them, one read and one message per room for everything pending (workspace.live.publish)."""

from __future__ import annotations

import time

import pytest
from channels.layers import BaseChannelLayer, InMemoryChannelLayer
from django.db import transaction

from tests.factories import RoomFactory, SlotMachineFactory
from workspace.live import publish


class RecordingLayer(BaseChannelLayer):
    """An out-of-process layer as the pusher sees it (the Redis one), recording what is sent."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[tuple[str, list[str]]] = []

    async def group_send(self, group: str, message: dict) -> None:
        self.sent.append((group, [tile["asset"] for tile in message["machines"]]))


@pytest.fixture
def layer(monkeypatch) -> RecordingLayer:
    recording = RecordingLayer()
    monkeypatch.setattr(publish, "get_channel_layer", lambda: recording)
    monkeypatch.setattr(publish, "_pending", set())
    return recording


@pytest.mark.django_db(transaction=True)
def test_the_request_only_marks_and_the_pusher_sends_one_message_per_room(layer, monkeypatch):
    first, second = RoomFactory(number=1), RoomFactory(number=2)
    a = SlotMachineFactory(room=first, asset_number="NOG-0001")
    b = SlotMachineFactory(room=first, asset_number="NOG-0002")
    c = SlotMachineFactory(room=second, asset_number="NOG-0003")
    asked: list[int] = []
    monkeypatch.setattr(publish._pusher, "notify", lambda: asked.append(1))
    publish._push([a.pk])
    publish._push([b.pk, c.pk])
    publish._push([a.pk])
    assert (layer.sent, len(asked)) == ([], 3), "nothing is read or sent on the request's thread"
    publish._push_pending()
    assert sorted(layer.sent) == [
        (f"floor.room.{first.pk}", ["NOG-0001", "NOG-0002"]),
        (f"floor.room.{second.pk}", ["NOG-0003"]),
    ]
    publish._push_pending()
    assert len(layer.sent) == 2, "a turn with nothing pending sends nothing"


@pytest.mark.django_db(transaction=True)
def test_the_pusher_thread_sends_after_the_commit(layer):
    machine = SlotMachineFactory(asset_number="NOG-0009")

    with transaction.atomic():
        publish.machines_changed([machine.pk])
        assert publish._pending == set(), "not before the commit"
    for _ in range(200):
        if layer.sent:
            break
        time.sleep(0.01)
    assert layer.sent == [(f"floor.room.{machine.room_id}", ["NOG-0009"])]


@pytest.mark.django_db
def test_with_the_in_memory_layer_the_push_stays_on_the_request(monkeypatch):
    """The embedded default's layer lives on the server's loop: another thread's loop cannot reach it."""
    sent: list[tuple[str, dict]] = []

    class Recording(InMemoryChannelLayer):
        async def group_send(self, group: str, message: dict) -> None:
            sent.append((group, message))

    in_memory = Recording()
    monkeypatch.setattr(publish, "get_channel_layer", lambda: in_memory)
    monkeypatch.setattr(publish._pusher, "notify", lambda: pytest.fail("the pusher was asked"))
    machine = SlotMachineFactory(asset_number="NOG-0010")
    publish._push([machine.pk])
    assert [(group, [tile["asset"] for tile in message["machines"]]) for group, message in sent] == [
        (f"floor.room.{machine.room_id}", ["NOG-0010"])
    ]
