"""Hears the link's pool (``wss://<link>/ws/link/``) and fetches its awards for this site.

``pool`` frames update the mirror when their ``value_seq`` is newer (``pool_mirror_update``); ``award``
frames (and every new connection, for what was missed while away) pull ``GET /api/v1/link/awards`` after
the last award kept, each kept once. A broken line is reconnected with a bounded exponential back-off;
while the link is silent nothing is written, and the signs' "link down" follows from the mirror's
``heard_at`` (``selectors.pool_heard``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

import httpx
import orjson
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections, connection
from django.db.models import Max
from django.utils import timezone
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

from linksite.models import LinkMembership, SiteAward
from linksite.services.mirror import (
    FrameInvalid,
    awards_store,
    link_heard,
    pool_frame_parse,
    pool_mirror_update,
)
from linksite.wire import link_http_url, link_ws_url

log = logging.getLogger(__name__)

AWARDS_PATH = "/api/v1/link/awards"
AWARD_PAGES_MAX = 100  # a page is the link's; this bounds one pull, the next frame or connection goes on


def awards_pull(membership_id: int, client: httpx.Client) -> int:
    """Fetches the awards after the last one kept, page by page; the number newly kept."""
    membership = LinkMembership.objects.get(pk=membership_id)
    new = 0
    for _ in range(AWARD_PAGES_MAX):
        after = SiteAward.objects.filter(membership=membership).aggregate(m=Max("link_award_id"))["m"] or 0
        response = client.get(
            link_http_url(membership.link_url, AWARDS_PATH),
            params={"pool": membership.pool_code, "after": after},
            headers={"Authorization": f"Bearer {membership.site_key}"},
        )
        response.raise_for_status()
        body = response.json()
        awards = body.get("awards") if isinstance(body, dict) else None
        if not isinstance(awards, list):
            raise FrameInvalid(f"the awards answer has no list of awards: {response.text[:200]}")
        new += len(awards_store(membership, awards))
        if not awards or not body.get("more"):
            break
    return new


def frame_apply(membership_id: int, frame: dict[str, Any], heard_at: datetime, client: httpx.Client) -> str:
    """What one frame does here; answers what it was (``pool``, ``stale``, ``award``, ``heartbeat``,
    ``ignored``)."""
    if not connection.in_atomic_block:  # a long-lived process: a connection the database dropped
        close_old_connections()
    membership = LinkMembership.objects.get(pk=membership_id)
    kind = frame.get("type")
    if kind in ("pool", "award") and frame.get("pool") != membership.pool_code:
        return "ignored"  # another pool of the same link
    if kind == "pool":
        return "pool" if pool_mirror_update(membership, pool_frame_parse(frame), heard_at) else "stale"
    if kind == "heartbeat":
        link_heard(membership, heard_at)
        return "heartbeat"
    if kind == "award":
        link_heard(membership, heard_at)
        awards_pull(membership_id, client)
        return "award"
    return "ignored"


class LinkListener:
    """One membership's listener; ``clock`` for tests."""

    def __init__(self, membership_id: int, clock: Callable[[], datetime] = timezone.now) -> None:
        self.membership_id = membership_id
        self.clock = clock
        self.client = httpx.Client(timeout=float(settings.LINK_HTTP_TIMEOUT_SECONDS))
        self.frames = 0  # frames applied since start (tests and logs)
        self.connected = False

    async def run(self, stop: asyncio.Event) -> None:
        """Connects, listens and reconnects until ``stop`` is set."""
        backoff_max = float(settings.LINK_BACKOFF_MAX_SECONDS)
        backoff = 0.5
        while not stop.is_set():
            self.connected = False
            try:
                await self.session(stop)
            except (OSError, WebSocketException, httpx.HTTPError, FrameInvalid, TimeoutError) as exc:
                log.warning(
                    "link membership %s: listener: %s: %s", self.membership_id, type(exc).__name__, exc
                )
            if self.connected:
                backoff = 0.5  # it was connected: the next try is soon
            try:
                await asyncio.wait_for(stop.wait(), timeout=backoff)
            except TimeoutError:
                backoff = min(backoff * 2, backoff_max)

    async def session(self, stop: asyncio.Event) -> None:
        """One connection: catches up the awards, then applies frames until the line or ``stop`` ends it."""
        membership = await sync_to_async(LinkMembership.objects.get)(pk=self.membership_id)
        headers = {"Authorization": f"Bearer {membership.site_key}"}
        async with connect(
            link_ws_url(membership.link_url), additional_headers=headers, open_timeout=10
        ) as ws:
            self.connected = True
            await sync_to_async(awards_pull)(self.membership_id, self.client)
            stopping = asyncio.ensure_future(stop.wait())
            try:
                while True:
                    receiving = asyncio.ensure_future(ws.recv())
                    done, _ = await asyncio.wait({receiving, stopping}, return_when=asyncio.FIRST_COMPLETED)
                    if receiving not in done:
                        receiving.cancel()
                        return
                    await self.message_apply(receiving.result())
            finally:
                stopping.cancel()

    async def message_apply(self, message: str | bytes) -> None:
        try:
            frame = orjson.loads(message)
        except orjson.JSONDecodeError:
            log.warning("link membership %s: a frame that is not JSON: %r", self.membership_id, message[:200])
            return
        if not isinstance(frame, dict):
            return
        try:
            await sync_to_async(frame_apply)(self.membership_id, frame, self.clock(), self.client)
        except FrameInvalid as exc:
            log.warning("link membership %s: frame refused: %s", self.membership_id, exc)
        self.frames += 1

    def close(self) -> None:
        self.client.close()


def _active_memberships() -> list[int]:
    ids = list(LinkMembership.objects.filter(active=True).order_by("id").values_list("id", flat=True))
    close_old_connections()  # this runs in a worker thread for as long as the process lives
    return ids


async def memberships_listen(
    stop: asyncio.Event, every: float, started: Callable[[int], None] = lambda membership_id: None
) -> None:
    """A listener for every active membership until ``stop``; every ``every`` seconds a membership added
    or switched on in the admin is picked up (and one whose listener ended is started again), as the
    forwarder does, so joining a link needs no restart."""
    running: dict[int, tuple[LinkListener, asyncio.Task[None]]] = {}
    try:
        while not stop.is_set():
            for membership_id in await sync_to_async(_active_memberships)():
                if membership_id not in running or running[membership_id][1].done():
                    listener = LinkListener(membership_id)
                    running[membership_id] = (listener, asyncio.ensure_future(listener.run(stop)))
                    started(membership_id)
            with contextlib.suppress(TimeoutError):  # the next look at the memberships
                await asyncio.wait_for(stop.wait(), timeout=every)
    finally:
        stop.set()
        await asyncio.gather(*(task for _, task in running.values()), return_exceptions=True)
        for listener, _ in running.values():
            listener.close()
