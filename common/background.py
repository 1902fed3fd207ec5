"""Work a request asks for after its commit, done by a thread of the process instead of the request.

A request only raises a flag (``notify``). One thread per sender and process calls ``send`` when the flag
is up, at most once every ``interval`` seconds: one call serves every request that raised the flag since
the last, so at high rates many requests share it and none waits on it. The thread lowers the flag before
it sends, so a flag raised during a send or the wait after it is seen on the next turn: every flag raised
has a send begun after it. When ``send`` fails (a broker or Redis down) the thread logs it and tries again
every ``retry`` seconds until it succeeds.

Its users: the engine's wake-up after stored games (slots.services.ingest) and the floor maps' pushes
(workspace.live.publish).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)

RETRY_SECONDS = 1.0


class BackgroundSender:
    def __init__(
        self, send: Callable[[], object], *, name: str, interval: float, retry: float = RETRY_SECONDS
    ) -> None:
        self._send = send
        self._name = name
        self.interval = interval
        self._retry = retry
        self._wanted = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid = 0

    def notify(self) -> None:
        self._wanted.set()
        # A forked child inherits the flag but not the thread.
        if self._thread is None or self._pid != os.getpid():
            self._start()

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None and self._pid == os.getpid():
                return
            self._pid = os.getpid()
            self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            self._wanted.wait()
            self._wanted.clear()
            try:
                self._send()
            except Exception as exc:
                logger.warning("%s failed (%s); retrying in %s s", self._name, exc, self._retry)
                self._wanted.set()
                time.sleep(self._retry)
                continue
            time.sleep(self.interval)
