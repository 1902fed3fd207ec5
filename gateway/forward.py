"""Posts the stored events to POST /api/v1/events, oldest first, and forgets them once answered.

In order: one batch in flight at a time, taken from the head of the store. Exactly once: an event
leaves the store only after a 200 that accounts for it (accepted, duplicate or rejected); a batch the
server stored but whose answer was lost is sent again with the same seqs and comes back as duplicates.
"""

from __future__ import annotations

import logging
import threading

import httpx

from gateway.queue import EventStore

log = logging.getLogger(__name__)

MAX_BATCH = 1000  # the API's limit per request


class Forwarder:
    def __init__(
        self, store: EventStore, url: str, key: str, batch: int = 500, timeout: float = 10.0
    ) -> None:
        self.store = store
        self.url = url.rstrip("/") + "/api/v1/events"
        self.batch = min(batch, MAX_BATCH)
        self.client = httpx.Client(headers={"Authorization": f"Bearer {key}"}, timeout=timeout)
        self.stop = threading.Event()
        self.reachable = False

    def send_once(self) -> int:
        """Send the oldest batch; the number of events that left the store (0: nothing or failed)."""
        rows = self.store.oldest(self.batch)
        if not rows:
            return 0
        try:
            response = self.client.post(self.url, json={"events": [event for _, event in rows]})
        except httpx.HTTPError as exc:
            self.reachable = False
            log.warning("server unreachable, %d events wait: %s", self.store.backlog(), exc)
            return 0
        if response.status_code != 200:
            self.reachable = False
            log.error(
                "server answered %d to %d events: %s", response.status_code, len(rows), response.text[:200]
            )
            return 0
        self.reachable = True
        rejected = {
            rows[item["index"]][0]: (item.get("error", ""), item.get("detail", ""))
            for item in response.json().get("rejected", [])
        }
        for row_id, (error, detail) in rejected.items():
            log.error("event %d rejected: %s %s", row_id, error, detail)
        self.store.done([row_id for row_id, _ in rows], rejected)
        return len(rows)

    def run(self, idle: float = 0.5, max_backoff: float = 5.0) -> None:
        # At most 5 s between tries: once the server is back the backlog reaches the signs within
        # seconds (a 30 s backoff kept it waiting half a minute), and one request per 5 s costs nothing.
        backoff = idle
        while not self.stop.is_set():
            self.store.arrived.clear()
            if self.send_once():
                backoff = idle
            elif self.store.backlog():  # the server did not take them: try again later
                self.stop.wait(backoff)
                backoff = min(backoff * 2, max_backoff)
            else:  # nothing to send: a new event wakes us at once (a game reaches the signs sooner)
                backoff = idle
                self.store.arrived.wait(idle)

    def close(self) -> None:
        self.client.close()
