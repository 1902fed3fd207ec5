"""A link for the forwarder's tests (``httpx.MockTransport``) that keeps the wire contract of
``POST /api/v1/link/entries``: entries applied once, in seq order; a retry acknowledged; a gap and a
conflict refused whole. ``faults`` are played one per request before the contract: ``connect`` (no
answer), ``500``, ``lost`` (the batch is stored, the answer lost), ``kill`` (the batch is stored, then the
forwarder dies mid-post)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.linksite.factories import LINK_URL, SITE_KEY

_CLIENT = httpx.Client  # the real one, for a test that replaces the forwarder's


class Killed(BaseException):
    """The forwarder's process killed mid-post (not an error it could catch)."""


@dataclass
class FakeLink:
    faults: list[str] = field(default_factory=list)
    entries: dict[int, dict] = field(default_factory=dict)  # seq -> body, as received
    applied: list[int] = field(default_factory=list)  # seqs in the order they were applied
    throughs: list[str] = field(default_factory=list)
    books: list[dict | None] = field(default_factory=list)  # each batch's ``books`` (None: none sent)
    requests: int = 0
    posted: list[list[int]] = field(default_factory=list)  # the seqs of each batch received
    on_answer: Any = None  # called after each 200
    currency: str = "EUR"  # the pool's

    @property
    def acked(self) -> int:
        return max(self.entries, default=0)

    def lose_after(self, seq: int) -> None:
        """The link's books restored from before ``seq`` (a fault at the link)."""
        for later in [s for s in self.entries if s > seq]:
            del self.entries[later]

    def client(self) -> httpx.Client:
        return _CLIENT(transport=httpx.MockTransport(self.handle), timeout=5)

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        assert str(request.url) == f"{LINK_URL}/api/v1/link/entries"
        assert request.headers["Authorization"] == f"Bearer {SITE_KEY}"
        fault = self.faults.pop(0) if self.faults else ""
        if fault == "connect":
            raise httpx.ConnectError("connection refused", request=request)
        if fault == "500":
            return httpx.Response(500, json={"error": "server_error", "detail": "Try again."})
        data = json.loads(request.content)
        assert data["pool"] == "JUMBO7"
        self.posted.append([e["seq"] for e in data["entries"]])
        self.books.append(data.get("books"))
        refused = self._receive(data["entries"])
        if refused is not None:
            return refused
        self.throughs.append(data["through"])
        if fault == "lost":
            raise httpx.ReadTimeout("the answer was lost", request=request)
        if fault == "kill":
            raise Killed
        pool = {"amount_mc": 1_000_000 + self.acked, "currency": self.currency, "value_seq": 10 + self.acked}
        answer = {"acked": self.acked, "pool": pool}
        if self.on_answer is not None:
            self.on_answer(self)
        return httpx.Response(200, json=answer)

    def _receive(self, entries: list[dict]) -> httpx.Response | None:
        acked, new = self.acked, []
        for entry in entries:
            seq = entry["seq"]
            if seq <= acked:
                if self.entries.get(seq) != entry:
                    detail = f"Entry {seq} was already received with other content."
                    return httpx.Response(409, json={"error": "entry_conflict", "detail": detail, "seq": seq})
                continue
            if seq != acked + 1:
                detail = f"Entry {seq} comes after a gap: the link expects {acked + 1}."
                return httpx.Response(
                    409, json={"error": "entry_gap", "detail": detail, "expected": acked + 1}
                )
            new.append(entry)
            acked = seq
        for entry in new:
            self.entries[entry["seq"]] = entry
            self.applied.append(entry["seq"])
        return None
