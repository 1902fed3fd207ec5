"""A small stand-in for POST /api/v1/events (dedupes on (machine, seq) and answers like the API) and
GET /api/v1/gateway/config (answers `gateway_map`, each machine with its `last_seq`)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeEventsServer:
    def __init__(self, key: str = "gw-key", port: int = 0) -> None:
        self.key = key
        self.stored: list[dict[str, Any]] = []  # in the order the server committed them
        self.requests = 0
        self.duplicates = 0
        self.conflicts = 0
        self.reject_seqs: set[tuple[str, int]] = set()
        self.hold = threading.Event()  # while set, answers wait after storing (a gateway killed mid-request)
        self.stored_batch = threading.Event()
        self.lock = threading.Lock()
        self.gateway_map: dict[str, Any] | None = None  # None: the map route answers 503
        self.map_requests = 0
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.hold.clear()
        self.httpd.shutdown()
        self.httpd.server_close()

    def accept(self, events: list[dict[str, Any]]) -> dict[str, Any]:
        accepted, duplicates, rejected = 0, 0, []
        with self.lock:
            self.requests += 1
            seen = {(e["machine"], e["seq"]): e for e in self.stored}
            for index, event in enumerate(events):
                key = (event["machine"], event["seq"])
                if key in self.reject_seqs:
                    rejected.append({"index": index, "error": "invalid_wager", "detail": "wager must be > 0"})
                elif key in seen and seen[key] != event:  # as the API: same seq, other content
                    self.conflicts += 1
                    rejected.append({"index": index, "error": "seq_conflict", "detail": "other content"})
                elif key in seen:
                    duplicates += 1
                else:
                    seen[key] = event
                    self.stored.append(event)
                    accepted += 1
            self.duplicates += duplicates
        return {"accepted": accepted, "duplicates": duplicates, "rejected": rejected}

    def last_seq(self, machine: str) -> int:
        with self.lock:
            return max((e["seq"] for e in self.stored if e["machine"] == machine), default=0)

    def map_with_seqs(self) -> dict[str, Any]:
        """The map, each machine with the last seq stored for it, as the server's route says."""
        assert self.gateway_map is not None
        machines = [{**m, "last_seq": self.last_seq(m["code"])} for m in self.gateway_map["machines"]]
        return {**self.gateway_map, "machines": machines}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return None

            def do_GET(self) -> None:
                if self.headers.get("Authorization") != f"Bearer {server.key}":
                    self._answer(401, {"error": "unauthorized", "detail": "bad key"})
                elif self.path != "/api/v1/gateway/config":
                    self._answer(404, {"error": "not_found", "detail": self.path})
                else:
                    server.map_requests += 1
                    if server.gateway_map is None:
                        self._answer(503, {"error": "database_unavailable", "detail": "down"})
                    else:
                        self._answer(200, server.map_with_seqs())

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if (
                    self.path != "/api/v1/events"
                    or self.headers.get("Authorization") != f"Bearer {server.key}"
                ):
                    self._answer(401, {"error": "unauthorized", "detail": "bad key"})
                    return
                result = server.accept(json.loads(body)["events"])
                server.stored_batch.set()
                while server.hold.is_set():
                    threading.Event().wait(0.05)
                self._answer(200, result)

            def _answer(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the gateway was killed while we held its request

        return Handler
