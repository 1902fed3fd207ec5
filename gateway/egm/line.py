"""The machine side of a SAS line: find each host frame in the byte stream, let the machines answer.

Without the wakeup bit (a pty, or a UART that does not report parity) a frame is found from its own
structure, as a machine does: a byte 80-FF is a whole general poll (address | 80), a byte 00-7F starts
a long poll whose command says how long it is (gateway/sas/frames.py REQUEST_LENGTH, or the length
byte). A pause longer than `gap` discards a half-read frame, and after a command we do not know we
drop bytes until the line goes quiet, so the next frame is read from its start.
"""

from __future__ import annotations

import threading
import time

from gateway.egm.machine import Egm
from gateway.sas import frames as f
from gateway.transport import Transport


class HostFrameReader:
    def __init__(self, gap: float = 0.1) -> None:
        self.gap = gap
        self.buf = b""
        self.last = 0.0
        self.skipping = False

    def feed(self, data: bytes, now: float) -> list[bytes]:
        if now - self.last > self.gap:
            self.buf, self.skipping = b"", False  # a quiet line: whatever was half-read is lost
        self.last = now
        if self.skipping:
            return []
        self.buf += data
        frames = []
        while self.buf:
            size = self._size(self.buf)
            if size is None or len(self.buf) < size:
                break
            frames.append(self.buf[:size])
            self.buf = self.buf[size:]
        return frames

    def _size(self, head: bytes) -> int | None:
        if head[0] & f.GENERAL_POLL_FLAG:
            return 1
        if len(head) >= 2 and head[1] not in f.REQUEST_LENGTH:
            self.skipping, self.buf = True, b""
            return None
        return f.frame_length(head, f.REQUEST_LENGTH)


class EgmLine:
    """Serves the machines on one line until `stop` is set."""

    def __init__(self, transport: Transport, machines: list[Egm], gap: float = 0.1) -> None:
        self.transport = transport
        self.machines = machines
        self.reader = HostFrameReader(gap)
        self.stop = threading.Event()

    def step(self, timeout: float = 0.02) -> None:
        data = self.transport.read(timeout)
        now = time.monotonic()
        for frame in self.reader.feed(data, now) if data else []:
            for machine in self.machines:
                reply = machine.answer(frame, now)
                if reply is not None:
                    self.transport.send(reply, wakeup=False)  # machines never set the wakeup bit
        for machine in self.machines:
            machine.tick(now)

    def run(self) -> None:
        while not self.stop.is_set():
            self.step()
