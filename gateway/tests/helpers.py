"""An in-memory SAS line between the host and emulated machines, a pseudo-terminal line with the emulator
on one end, a recorder of host outputs, and a wait
for a condition (the fixtures are in conftest.py)."""

from __future__ import annotations

import os
import threading
import time
import tty
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from gateway.app import GatewayCallbacks
from gateway.egm.line import EgmLine
from gateway.egm.machine import Egm
from gateway.host_io import Callbacks
from gateway.transport import FdTransport


class Wire:
    """Delivers each host frame to the machine at once; can lose a number of answers."""

    def __init__(self, *egms: Egm) -> None:
        self.egms = egms
        self.now = 0.0
        self.inbox = b""
        self.sent: list[tuple[float, bytes]] = []
        self.lose = 0

    def send(self, frame: bytes, wakeup: bool = True) -> None:
        self.sent.append((self.now, frame))
        replies = [egm.answer(frame, self.now) for egm in self.egms]
        reply = next((r for r in replies if r is not None), None)
        if reply and self.lose:
            self.lose -= 1
        elif reply:
            self.inbox += reply

    def read(self, timeout: float) -> bytes:
        out, self.inbox = self.inbox, b""
        return out

    def discard_input(self) -> None:
        self.inbox = b""

    def close(self) -> None:
        return None


class Recorder(Callbacks):
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.hits: list[tuple[int, int]] = []

    def event(self, machine: str, event: dict[str, Any], kept: tuple[str, bytes] | None = None) -> None:
        self.events.append(event)

    def progressive_hit(self, group: int, level: int) -> None:
        self.hits.append((group, level))


def store_callbacks(store: Any, channel: Any = None) -> GatewayCallbacks:
    """The gateway's own callbacks over a store, without the rest of the gateway; `channel` stands in for
    the server channel (its `send` gets the award results)."""
    board = SimpleNamespace(hit=lambda group, level: None)
    return GatewayCallbacks(SimpleNamespace(store=store, board=board, channel=channel))  # type: ignore[arg-type]


class SentMessages:
    """Stands in for the server channel: keeps what the gateway sends the server."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        return None

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)


def wait_for(check: Callable[[], object], timeout: float = 10.0, what: str = "condition") -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


class PtyLine:
    """An emulator serving machines on a pty; `device` is the path the gateway opens."""

    def __init__(self, machines: list[Egm]) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self.slave)
        self.device = os.ttyname(self.slave)
        self.line = EgmLine(FdTransport(self.master), machines)
        self.thread = threading.Thread(target=self.line.run, daemon=True)

    def close(self) -> None:
        self.line.stop.set()
        self.thread.join(timeout=5)
        os.close(self.master)
        os.close(self.slave)


# How a machine reads SAS 6.02 where the standard leaves a choice (EgmConfig fields), by name: ours answers
# idle polls and never pre-empts; "independent" is the machine of issue 22 (Table C-7 minimum meters,
# events in place of long polls' answers, silent when idle in real-time mode).
EGM_VARIANTS: dict[str, dict[str, Any]] = {
    "ours": {},
    "independent": {"rte_preempts": True, "rte_idle": "silent"},
    "ff00-5byte": {"rte_preempts": True, "rte_idle": "ff00", "meter_size": 5},
    "silent-5byte": {"rte_idle": "silent", "meter_size": 5},
}
