"""The listener against a small local websocket link: pool frames kept when newer, awards fetched and
kept once, and a broken line reconnected."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from asgiref.sync import sync_to_async
from django.db import connections as db_connections
from websockets.asyncio.server import serve

from jackpots.models import Progressive
from linksite.listener import LinkListener, memberships_listen
from linksite.models import LinkMembership, LinkPoolMirror, SiteAward
from tests.linksite.factories import LINK_URL, SITE_KEY, linked_site

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

AWARDS = [{"id": 17, "pool": "JUMBO7", "amount_mc": 4_083_000}, {"id": 18, "pool": "JUMBO7", "amount_mc": 9}]


class Link:
    """Serves ``/ws/link/`` to the site key only; each connection is sent the next list of frames, then
    closed when ``close_after`` says so (else held open)."""

    def __init__(self, sessions: list[list[dict]], close_after: bool = False) -> None:
        self.sessions = sessions
        self.close_after = close_after
        self.connections = 0
        self.attempts = 0
        self.award_queries: list[str] = []

    def refuse(self, connection, request):  # websockets' process_request
        self.attempts += 1
        if request.path != "/ws/link/" or request.headers.get("Authorization") != f"Bearer {SITE_KEY}":
            return connection.respond(401, "key_invalid\n")
        return None

    async def handler(self, ws) -> None:
        frames = self.sessions[self.connections] if self.connections < len(self.sessions) else []
        self.connections += 1
        for frame in frames:
            await ws.send(json.dumps(frame))
        if not self.close_after:
            await ws.wait_closed()

    def awards(self, request: httpx.Request) -> httpx.Response:
        assert request.headers["Authorization"] == f"Bearer {SITE_KEY}"
        self.award_queries.append(str(request.url.query, "ascii"))
        after = int(request.url.params["after"])
        return httpx.Response(
            200, json={"pool": "JUMBO7", "more": False, "awards": [a for a in AWARDS if a["id"] > after]}
        )


async def _listen(
    link: Link, membership_id: int, frames: int, connections: int = 1, attempts: int = 0
) -> LinkListener:
    """Runs the listener until it has applied ``frames`` frames over ``connections`` connections (and
    tried ``attempts`` times)."""
    async with serve(link.handler, "127.0.0.1", 0, process_request=link.refuse) as server:
        port = server.sockets[0].getsockname()[1]
        await sync_to_async(LinkMembership.objects.filter(pk=membership_id).update)(
            link_url=f"http://127.0.0.1:{port}"
        )
        listener = LinkListener(membership_id)
        listener.client = httpx.Client(transport=httpx.MockTransport(link.awards))
        stop = asyncio.Event()
        task = asyncio.ensure_future(listener.run(stop))

        async def heard() -> None:
            while listener.frames < frames or link.connections < connections or link.attempts < attempts:
                await asyncio.sleep(0.01)

        await asyncio.wait_for(heard(), timeout=20)
        stop.set()
        await asyncio.wait_for(task, timeout=10)
    await sync_to_async(db_connections.close_all)()
    return listener


def test_pool_frames_are_kept_when_newer_and_each_award_once() -> None:
    *_, membership = linked_site()
    frames = [
        {"type": "pool", "pool": "JUMBO7", "amount_mc": 12_345_678, "currency": "EUR", "value_seq": 981},
        {"type": "pool", "pool": "JUMBO7", "amount_mc": 11_000_000, "currency": "EUR", "value_seq": 980},
        {"type": "pool", "pool": "OTHER", "amount_mc": 1, "currency": "EUR", "value_seq": 999},
        {"type": "heartbeat", "at": "2026-11-27T10:15:05.000Z"},
        {"type": "award", "pool": "JUMBO7", "id": 18},
    ]
    link = Link([frames])
    asyncio.run(_listen(link, membership.pk, frames=5))
    mirror = LinkPoolMirror.objects.get()
    assert (mirror.amount_mc, mirror.currency, mirror.value_seq) == (12_345_678, "EUR", 981)
    assert list(SiteAward.objects.order_by("link_award_id").values_list("link_award_id", flat=True)) == [
        17,
        18,
    ]
    # At the connection from the start, at the award frame after the last kept.
    assert link.award_queries == ["pool=JUMBO7&after=0", "pool=JUMBO7&after=18"]


def test_a_broken_line_is_reconnected_and_a_silent_link_writes_nothing() -> None:
    *_, membership = linked_site()
    first = [{"type": "pool", "pool": "JUMBO7", "amount_mc": 100, "currency": "EUR", "value_seq": 1}]
    second = [{"type": "pool", "pool": "JUMBO7", "amount_mc": 200, "currency": "EUR", "value_seq": 2}]
    link = Link([first, second, []], close_after=True)
    asyncio.run(_listen(link, membership.pk, frames=2, connections=2))
    mirror = LinkPoolMirror.objects.get()
    assert (mirror.amount_mc, mirror.value_seq) == (200, 2)
    heard_at = mirror.heard_at
    # Connected to a link that says nothing: nothing is written (the signs see the silence grow).
    silent = Link([[]])
    asyncio.run(_listen(silent, membership.pk, frames=0, connections=1))
    assert LinkPoolMirror.objects.get().heard_at == heard_at


def test_a_wrong_key_is_refused_and_nothing_is_written() -> None:
    *_, membership = linked_site()
    LinkMembership.objects.filter(pk=membership.pk).update(site_key="wrong")
    link = Link([[{"type": "pool", "pool": "JUMBO7", "amount_mc": 1, "currency": "EUR", "value_seq": 1}]])
    asyncio.run(_listen(link, membership.pk, frames=0, connections=0, attempts=2))  # tried again later
    assert (link.connections, LinkPoolMirror.objects.count(), SiteAward.objects.count()) == (0, 0, 0)


class FakeListener:
    """Stands for a membership's listener: it listens until stopped."""

    started: list[int] = []

    def __init__(self, membership_id: int) -> None:
        self.membership_id = membership_id
        FakeListener.started.append(membership_id)

    async def run(self, stop: asyncio.Event) -> None:
        await stop.wait()

    def close(self) -> None:
        pass


def test_a_membership_added_while_listening_is_heard_without_a_restart(monkeypatch) -> None:
    *_, membership = linked_site()
    other = Progressive.objects.exclude(pk=membership.progressive_id).order_by("id").first()
    monkeypatch.setattr("linksite.listener.LinkListener", FakeListener)
    FakeListener.started = []
    announced: list[int] = []

    async def scenario() -> None:
        stop = asyncio.Event()
        task = asyncio.ensure_future(memberships_listen(stop, 0.05, announced.append))
        while FakeListener.started != [membership.pk]:
            await asyncio.sleep(0.01)
        added = await sync_to_async(LinkMembership.objects.create)(
            progressive=other, link_url=LINK_URL, pool_code="OTHER", site_key=SITE_KEY
        )
        await asyncio.wait_for(_until(lambda: len(FakeListener.started) == 2), timeout=10)
        stop.set()
        await asyncio.wait_for(task, timeout=10)
        assert FakeListener.started == announced == [membership.pk, added.pk]
        await sync_to_async(db_connections.close_all)()  # the worker thread's connection

    asyncio.run(scenario())


async def _until(condition) -> None:
    while not condition():
        await asyncio.sleep(0.01)
