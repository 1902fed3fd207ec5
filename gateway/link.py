"""SAS link layer, host side: read one answer frame, retry a poll, keep the polling cadence.

SAS 6.02 §2.3: a machine starts answering within 20 ms and leaves at most 5 ms between bytes; the host
polls each machine no faster than once per 200 ms and no slower than once per 5 s. §3.2: a host that did
not get an answer repeats the poll (an implied NACK), at most three polls in all. §3.1: any other poll is
the implied ACK, so an exception is let go only after the host has handled (kept) it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from gateway.sas.frames import FrameError, sync_poll
from gateway.transport import Transport

log = logging.getLogger(__name__)

MIN_INTERVAL = 0.2
MAX_INTERVAL = 5.0
# After a process that did not stop cleanly, the line stays silent this long before its first frame: every
# machine declares its link down (5 s without a poll), which is an implied NACK of an answer the dead
# process may have read and not kept, so that answer comes back instead of being acknowledged by the
# first poll on the line (README, "Acknowledging exceptions").
QUIET_RESTART = 5.5


@dataclass
class Poll:
    """One exchange: what to send, how long the answer is, what it means, who wants it."""

    request: bytes
    length: Callable[[bytes], int | None]  # from the bytes read so far; None: need more
    decode: Callable[[bytes], Any]  # raises FrameError on anything malformed
    handle: Callable[[Any], None]
    attempts: int = 3
    # From the handled answer: does the machine hold it until an implied ACK (an exception)? The line
    # then sends one at once, so the machine's next answer is never the same one again.
    acknowledge: Callable[[Any], bool] | None = None
    # Called when no valid answer came after `attempts`: the poll may or may not have reached the machine.
    failed: Callable[[], None] | None = None
    # Silence is an answer (a general poll in real-time mode, SAS 6.02 §12.6): not asked again.
    silence_ok: bool = False


def read_frame(
    transport: Transport, length: Callable[[bytes], int | None], first: float, gap: float
) -> bytes:
    """Bytes of one frame: the first within `first` s, each next within `gap` s.

    Returns what arrived, possibly short or empty: the decoder rejects a short frame and the poll is
    repeated, as a real host does when a machine falls silent mid-answer.
    """
    buf = b""
    deadline = time.monotonic() + first
    while True:
        want = length(buf) if buf else None
        if want is not None and len(buf) >= want:
            return buf[:want]
        chunk = transport.read(deadline - time.monotonic())
        if not chunk:
            return buf
        buf += chunk
        deadline = time.monotonic() + gap


class Link:
    """Exchanges on one serial line; counts silence for the link-down rule per address."""

    def __init__(self, transport: Transport, first_byte: float = 0.05, gap: float = 0.05) -> None:
        self.transport = transport
        self.first_byte = first_byte
        self.gap = gap

    def exchange(self, poll: Poll) -> tuple[bool, Any]:
        """(True, decoded answer) or (False, None) after `poll.attempts` tries."""
        for attempt in range(poll.attempts):
            self.transport.discard_input()
            self.transport.send(poll.request)
            raw = read_frame(self.transport, poll.length, self.first_byte, self.gap)
            if not raw and poll.silence_ok:
                break  # "nothing to report": asking again would only cost the line's time
            if not raw:
                continue
            try:
                return True, poll.decode(raw)
            except FrameError as exc:
                log.debug("poll %s attempt %d: %s", poll.request[:2].hex(), attempt + 1, exc)
        return False, None

    def broadcast(self, frame: bytes) -> None:
        """Type G polls are neither acknowledged nor answered."""
        self.transport.send(frame)

    def handled(self, poll: Poll, value: Any) -> None:
        """After `poll.handle(value)` returned: send the implied ACK the answer waits for, if any."""
        if poll.acknowledge is not None and poll.acknowledge(value):
            self.transport.send(sync_poll())


class LineMachine(Protocol):
    address: int
    interval: float
    next_due: float

    def next_poll(self, now: float) -> Poll: ...

    def answered(self, now: float) -> None: ...

    def on_silence(self, now: float, poll: Poll | None = None) -> None: ...


class Polled(Protocol):
    """What the interval check reads: a machine's configuration or its host."""

    @property
    def interval(self) -> float: ...


class Broadcaster(Protocol):
    def frames_due(self, now: float) -> list[bytes]: ...

    def wait(self, timeout: float) -> None: ...


def check_intervals(machines: Sequence[Polled]) -> None:
    for machine in machines:
        if not MIN_INTERVAL <= machine.interval <= MAX_INTERVAL:
            raise ValueError(f"poll interval {machine.interval} s is outside 0.2-5 s (SAS 6.02 §2.3.3)")


class LinePoller:
    """Runs one line: broadcasts when due, otherwise the machine whose turn has come."""

    def __init__(
        self,
        link: Link,
        machines: Sequence[LineMachine],
        broadcaster: Broadcaster | None = None,
        quiet: float = 0.0,
    ):
        check_intervals(machines)
        self.link = link
        self.machines = machines
        self.broadcaster = broadcaster
        self.stop = threading.Event()
        self.quiet = quiet  # seconds of silence before the first frame (QUIET_RESTART after a crash)
        self.quiet_until: float | None = None

    def step(self, now: float) -> float:
        """Do what is due at `now`; return when something is next due."""
        if self.quiet_until is None:
            self.quiet_until = now + self.quiet  # counted on the caller's clock, from the first step
        if now < self.quiet_until:
            return self.quiet_until
        if self.broadcaster is not None:
            for frame in self.broadcaster.frames_due(now):
                self.link.broadcast(frame)
        machines = self.machines  # replaced whole when the server's map changes, never edited
        if not machines:  # a line the server's map has no machine on (yet)
            return now + 0.1
        machine = min(machines, key=lambda m: m.next_due)
        if machine.next_due > now:
            return machine.next_due
        # Schedule from the start of the exchange: the 200 ms floor counts between polls, not answers.
        machine.next_due = now + machine.interval
        poll = machine.next_poll(now)
        answered, value = self.link.exchange(poll)
        if answered:
            machine.answered(now)
            poll.handle(value)  # what the answer makes is on disk when this returns
            self.link.handled(poll, value)
        else:
            machine.on_silence(now, poll)
            if poll.failed is not None:
                poll.failed()
        return min(m.next_due for m in machines)

    def run(self) -> None:
        while not self.stop.is_set():
            due = self.step(time.monotonic())
            # Wake at least every 100 ms so a periodic broadcast or a stop is never late by more than that;
            # a changed amount or a hit wakes the line at once (the broadcaster's wait).
            timeout = max(0.0, min(due - time.monotonic(), 0.1))
            if self.broadcaster is not None:
                self.broadcaster.wait(timeout)
            else:
                self.stop.wait(timeout)
