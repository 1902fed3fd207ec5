"""Sends a membership's outbox to the link (``POST /api/v1/link/entries``), in order, until acknowledged.

As the gateway's store-and-forward (``gateway/forward.py``): one batch in flight, taken from the head of
the unacknowledged entries; nothing is marked before the link's 200 says how far it holds them, so a post
whose answer is lost (or a forwarder killed mid-post) sends the same entries again, which the link
acknowledges without applying them twice.

``through``: every round played before it is in this batch or an earlier one. A table posts its round
within seconds of play, so the forwarder says now less LINK_THROUGH_LAG_SECONDS, held back to the earliest
entry a full batch leaves behind; the link then applies the pool within seconds of play. A round posted
later than the lag still goes, and the link applies it when it arrives (docs/wide-area.md).

The link's refusals: ``entry_gap`` (it lacks entries this side had marked: they are marked again and
resent, a fault in ``last_error``); ``entry_conflict`` (it holds another entry under a seq: the forwarder
stops for this membership, staff must look); network errors and 5xx: bounded exponential back-off.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum
from typing import Any

import httpx
from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone

from linksite.models import LinkMembership
from linksite.selectors import outbox_left_first, outbox_unacked
from linksite.services.acks import membership_error, outbox_acked
from linksite.services.mirror import FrameInvalid, pool_frame_parse, pool_mirror_update
from linksite.wire import instant_text, link_http_url

log = logging.getLogger(__name__)

BATCH_MAX = 200
ENTRIES_PATH = "/api/v1/link/entries"


class Outcome(Enum):
    ACKED = "acked"  # the link answered 200
    IDLE = "idle"  # nothing to send, and ``through`` not due
    GAP = "gap"  # the link lacks earlier entries: sent again from there
    CONFLICT = "conflict"  # stop: staff must look
    RETRY = "retry"  # unreachable, 5xx, or refused for now: back off and try again
    INACTIVE = "inactive"


@dataclass(frozen=True)
class Sent:
    outcome: Outcome
    entries: int = 0
    acked: int | None = None


class LinkForwarder:
    """One membership's forwarder; ``client`` for tests (an ``httpx.MockTransport``), ``clock`` the time."""

    def __init__(
        self,
        membership_id: int,
        client: httpx.Client | None = None,
        clock: Callable[[], datetime] = timezone.now,
    ) -> None:
        self.membership_id = membership_id
        timeout = float(settings.LINK_HTTP_TIMEOUT_SECONDS)
        self.client = client or httpx.Client(timeout=timeout)
        self.clock = clock
        self.batch = BATCH_MAX
        self.last_post: datetime | None = None
        self.stop = threading.Event()

    def through(self, now: datetime, left: datetime | None) -> datetime:
        """Every round played before this is in this batch or an earlier one: its table has surely posted
        it by LINK_THROUGH_LAG_SECONDS after play (a later one still goes, and is applied when it comes),
        and no entry left for a later batch (``left``: the earliest played) was played before it."""
        through = now - timedelta(seconds=float(settings.LINK_THROUGH_LAG_SECONDS))
        return through if left is None else min(through, left)

    def send_once(self) -> Sent:
        now = self.clock()  # before the outbox is read: a round committed later was received after it
        membership = LinkMembership.objects.select_related("progressive").get(pk=self.membership_id)
        if not membership.active:
            return Sent(Outcome.INACTIVE)
        rows = outbox_unacked(membership.pk, self.batch)
        every = timedelta(seconds=float(settings.LINK_THROUGH_SECONDS))
        if not rows and self.last_post is not None and now - self.last_post < every:
            return Sent(Outcome.IDLE)
        payload: dict[str, Any] = {
            "pool": membership.pool_code,
            "through": instant_text(self.through(now, outbox_left_first(membership.pk, rows))),
            "entries": [row.body for row in rows],
        }
        if rows:  # the site's own books through the batch's last entry, for the link's reconciliation
            payload["books"] = {"seq": rows[-1].seq, "wagered_cents": rows[-1].wagered_through_cents}
        try:
            response = self.client.post(
                link_http_url(membership.link_url, ENTRIES_PATH),
                json=payload,
                headers={"Authorization": f"Bearer {membership.site_key}"},
            )
        except httpx.HTTPError as exc:
            self._error(f"The link is unreachable: {exc.__class__.__name__}: {exc}"[:300], warn=True)
            return Sent(Outcome.RETRY, len(rows))
        self.last_post = now
        return self._answer(membership, response, len(rows))

    def _answer(self, membership: LinkMembership, response: httpx.Response, sent: int) -> Sent:
        body = _json(response)
        code, detail = _error_of(body)
        if response.status_code == 200:
            acked = body.get("acked")
            if isinstance(acked, bool) or not isinstance(acked, int):
                self._error(f"The link answered 200 without an acked seq: {response.text[:200]}")
                return Sent(Outcome.RETRY, sent)
            outbox_acked(membership.pk, acked, self.clock())
            self._pool_heard(membership, body.get("pool"))
            self._currency_check(membership, body.get("pool"))
            self.batch = BATCH_MAX
            return Sent(Outcome.ACKED, sent, acked)
        if response.status_code == 409 and code == "entry_gap":
            return self._gap(membership, body, detail, sent)
        if response.status_code == 409 and code == "entry_conflict":
            message = f"The link refused an entry as a conflict (staff must look): {detail}"
            log.critical("link membership %s: %s", membership.pk, message)
            membership_error(membership.pk, message)
            return Sent(Outcome.CONFLICT, sent)
        if response.status_code == 413 and self.batch > 1:
            self.batch = max(1, self.batch // 2)  # a smaller batch next time
        message = f"The link answered {response.status_code} {code}: {detail or response.text[:200]}"
        self._error(message, warn=response.status_code >= 500)
        return Sent(Outcome.RETRY, sent)

    def _gap(self, membership: LinkMembership, body: dict[str, Any], detail: str, sent: int) -> Sent:
        expected = _expected_seq(body)
        if expected is None or expected < 1:
            self._error(f"The link answered entry_gap without the seq it expects: {detail}")
            return Sent(Outcome.RETRY, sent)
        done = outbox_acked(membership.pk, expected - 1, self.clock())
        if not done.fault and not done.unmarked and not done.marked:
            # It expects what this batch started with: a gap it cannot have; wait rather than spin.
            self._error(f"The link answered entry_gap expecting {expected}, which was sent: {detail}")
            return Sent(Outcome.RETRY, sent)
        return Sent(Outcome.GAP, sent, expected - 1)

    def _pool_heard(self, membership: LinkMembership, pool: object) -> None:
        if not isinstance(pool, dict):
            return
        try:
            pool_mirror_update(membership, pool_frame_parse(pool), self.clock())
        except FrameInvalid as exc:
            log.warning("link membership %s: the ack's pool is not usable: %s", membership.pk, exc)

    def _currency_check(self, membership: LinkMembership, pool: object) -> None:
        """The rates this site records are its progressive's currency in its venues'; the link reads them
        as its pool's. Different currencies make every entry's conversion wrong: staff must look."""
        currency = pool.get("currency") if isinstance(pool, dict) else None
        local = membership.progressive.currency
        if isinstance(currency, str) and currency != local:
            message = (
                f"The link's pool is in {currency}, this site's progressive in {local}: "
                "the rates sent are wrong."
            )
            log.critical("link membership %s: %s", membership.pk, message)
            membership_error(membership.pk, message)

    def _error(self, message: str, *, warn: bool = False) -> None:
        (log.warning if warn else log.error)("link membership %s: %s", self.membership_id, message)
        membership_error(self.membership_id, message)

    def run(self) -> None:
        """Sends until stopped (or a conflict): at once while there is a backlog, ``through`` every
        LINK_THROUGH_SECONDS when there is not, with back-off while the link does not take them."""
        idle = float(settings.LINK_FORWARD_POLL_SECONDS)
        backoff_max = float(settings.LINK_BACKOFF_MAX_SECONDS)
        backoff = idle
        while not self.stop.is_set():
            if not connection.in_atomic_block:  # (a test's transaction is not a stale connection)
                close_old_connections()
            try:
                sent = self.send_once()
            except Exception:  # the database away: the loop lives on, the outbox is where it was
                log.exception("link membership %s: the forwarder failed; trying again", self.membership_id)
                sent = Sent(Outcome.RETRY)
            if sent.outcome is Outcome.CONFLICT:
                return
            if sent.outcome is Outcome.RETRY:
                self.stop.wait(backoff)
                backoff = min(backoff * 2, backoff_max)
                continue
            backoff = idle
            if sent.outcome in (Outcome.IDLE, Outcome.INACTIVE) or sent.entries < self.batch:
                self.stop.wait(idle)

    def close(self) -> None:
        self.client.close()


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _error_of(body: dict[str, Any]) -> tuple[str, str]:
    """The error's code and sentence: ``{"error": code, "detail": ...}`` as the product's APIs answer
    (``common.api_errors``), or nested as ``{"error": {"code", "detail"}}`` as the wire document writes."""
    error = body.get("error")
    if isinstance(error, dict):
        return str(error.get("code", "")), str(error.get("detail", ""))
    return (error if isinstance(error, str) else ""), str(body.get("detail", ""))


def _expected_seq(body: dict[str, Any]) -> int | None:
    """The seq the link expects after a gap: ``expected`` at the top or in the error (the contract names
    the seq without fixing its place)."""
    error = body.get("error")
    for where in (body, error if isinstance(error, dict) else {}):
        for name in ("expected", "expected_seq"):
            value = where.get(name)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
    return None
