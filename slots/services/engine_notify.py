"""Asking the worker's engine to apply stored events, from a web process, without a request ever waiting
on the broker or failing because of it.

A request only raises a flag after its commit. One thread per process sends ``contributions_apply_task``
when the flag is up, at most once every ENGINE_NOTIFY_INTERVAL seconds: an engine run applies every
pending event, so at high rates one task serves many requests and saves each a broker round trip. The
thread lowers the flag before it sends, so a flag raised during a send or the wait after it is seen on
the next turn: every committed event has a task sent after its commit, and none waits on a later
request (or on beat). When the broker is down the events are stored and pending all the same: the
request is answered as usual, and the thread keeps trying every BROKER_RETRY_SECONDS until the broker
takes the task.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable

from slots.hooks import engine_wake

logger = logging.getLogger(__name__)

ENGINE_NOTIFY_INTERVAL = 0.1
BROKER_RETRY_SECONDS = 1.0


class EngineNotifier:
    def __init__(
        self,
        send: Callable[[], object],
        interval: float = ENGINE_NOTIFY_INTERVAL,
        retry: float = BROKER_RETRY_SECONDS,
    ) -> None:
        self._send = send
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
            self._thread = threading.Thread(target=self._run, name="engine-notify", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            self._wanted.wait()
            self._wanted.clear()
            try:
                self._send()
            except Exception as exc:
                logger.warning(
                    "Engine not asked (broker unreachable: %s); retrying, the events stay pending", exc
                )
                self._wanted.set()
                time.sleep(self._retry)
                continue
            time.sleep(self.interval)


# The engine registers its wake-up in slots.hooks (it is above slots in the house).
engine_notifier = EngineNotifier(engine_wake)
