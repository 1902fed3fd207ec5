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
from gateway.servermap import MapUnavailable, fetch_map

log = logging.getLogger(__name__)

MAX_BATCH = 1000  # the API's limit per request
SEQ_CONFLICT = "seq_conflict"


class Forwarder:
    def __init__(
        self, store: EventStore, url: str, key: str, batch: int = 500, timeout: float = 10.0
    ) -> None:
        self.store = store
        self.base, self.key = url, key
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
        # Numbered again, the batch is read again: a machine's first event may have come meanwhile, so
        # it is checked until none of its machines is provisional (a fixed number of tries let a fourth
        # machine through still numbered from 1). Each pass numbers at least one machine, which is then
        # provisional no more, so this ends within the store's machines.
        while self.seqs_from_server({event["machine"] for _, event in rows}):
            rows = self.store.oldest(self.batch)
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
        # A seq the server holds with other content: this store numbered the machine from where the
        # server is not (a lost store, a machine moved from another gateway). The event is not dropped:
        # it waits, and the machine's waiting events are numbered again after the server's last seq.
        conflicts = {row_id for row_id, (error, _) in rejected.items() if error == SEQ_CONFLICT}
        for row_id, event in rows:
            if row_id in conflicts:
                log.warning("%s seq %d: seq_conflict, numbered again", event["machine"], event["seq"])
                self.store.provisional_set(event["machine"])
        for row_id, (error, detail) in rejected.items():
            if row_id not in conflicts:
                log.error("event %d rejected: %s %s", row_id, error, detail)
        self.store.done(
            [row_id for row_id, _ in rows if row_id not in conflicts],
            {row_id: why for row_id, why in rejected.items() if row_id not in conflicts},
        )
        return len(rows) - len(conflicts)

    def seqs_from_server(self, machines: set[str]) -> bool:
        """Number the waiting events of the batch's provisional machines after the server's last seq of
        each (GET /api/v1/gateway/config, `last_seq`); True when some were. A server that cannot say
        leaves them as they are: posted, a conflict keeps them waiting for the next try."""
        due = machines & self.store.provisional()
        if not due:
            return False
        try:
            answer = fetch_map(self.base, self.key)
        except MapUnavailable as exc:
            log.warning("seqs of %s not taken from the server: %s", ", ".join(sorted(due)), exc)
            return False
        last = {m.get("code"): m.get("last_seq") for m in answer["machines"]}
        for machine in sorted(due):
            server_last = last.get(machine)
            if not isinstance(server_last, int):
                log.warning("%s: the server gave no last seq; its events keep this store's", machine)
                server_last = None
            self.store.renumber(machine, server_last)
            log.info("%s: events numbered after the server's last seq %s", machine, server_last)
        return True

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
