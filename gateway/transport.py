"""Byte transports for a SAS line: a real serial port (wakeup bit by parity) or a plain file descriptor.

A pseudo-terminal carries the bytes and nothing else, so on it the receiver finds frames from their
structure (address, command, length) instead of the wakeup bit; see gateway/link.py.
"""

from __future__ import annotations

import os
import select
import time
from typing import Protocol


class Transport(Protocol):
    def send(self, frame: bytes, wakeup: bool = True) -> None:
        """Write one frame; with `wakeup` its first byte carries the wakeup bit (host to machine)."""

    def read(self, timeout: float) -> bytes:
        """Whatever arrives within `timeout` seconds (possibly nothing)."""

    def discard_input(self) -> None: ...

    def close(self) -> None: ...


class FdTransport:
    """A file descriptor: one side of a pseudo-terminal, or a tty path opened raw."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    @classmethod
    def open(cls, path: str) -> FdTransport:
        import tty

        fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(fd)  # no echo, no line discipline: a SAS frame may contain any byte
        return cls(fd)

    def send(self, frame: bytes, wakeup: bool = True) -> None:
        view = memoryview(frame)
        while view:
            view = view[os.write(self.fd, view) :]

    def read(self, timeout: float) -> bytes:
        ready, _, _ = select.select([self.fd], [], [], max(timeout, 0))
        if not ready:
            return b""
        try:
            return os.read(self.fd, 512)
        except OSError:  # the other side closed (EIO on a pty): same as silence to the caller
            time.sleep(timeout)
            return b""

    def discard_input(self) -> None:
        while self.read(0):
            pass

    def close(self) -> None:
        os.close(self.fd)


class SerialTransport:
    """A real serial port at 19,200 baud, 8 data bits, the 9th bit emulated by the parity bit.

    SAS hosts without a 9-bit UART send the address byte with MARK parity (wakeup bit set) and every
    other byte with SPACE parity (clear), draining the UART between the two so the switch cannot
    overtake the address byte.
    """

    def __init__(self, path: str, baudrate: int = 19200) -> None:
        import serial

        self._serial = serial
        self.port = serial.Serial(path, baudrate=baudrate, bytesize=8, parity=serial.PARITY_SPACE, timeout=0)

    def send(self, frame: bytes, wakeup: bool = True) -> None:
        rest = frame
        if wakeup:
            self.port.parity = self._serial.PARITY_MARK
            self.port.write(frame[:1])
            self.port.flush()  # tcdrain: the address byte is on the wire before parity changes
            self.port.parity = self._serial.PARITY_SPACE
            rest = frame[1:]
        if rest:
            self.port.write(rest)
            self.port.flush()

    def read(self, timeout: float) -> bytes:
        self.port.timeout = max(timeout, 0)
        first = self.port.read(1)
        return first + self.port.read(self.port.in_waiting) if first else b""

    def discard_input(self) -> None:
        self.port.reset_input_buffer()

    def close(self) -> None:
        self.port.close()


def open_transport(path: str, wakeup: str = "parity") -> Transport:
    """`wakeup`: "parity" for a real SAS serial line, "none" for a pty or any plain byte pipe."""
    if wakeup == "parity":
        return SerialTransport(path)
    if wakeup == "none":
        return FdTransport.open(path)
    raise ValueError(f"wakeup must be 'parity' or 'none', not {wakeup!r}")
