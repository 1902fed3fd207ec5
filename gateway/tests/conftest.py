"""Fixtures for the gateway: a pseudo-terminal line with the emulator on one end."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import pytest

from gateway.egm.machine import Egm
from gateway.tests.helpers import PtyLine


@pytest.fixture
def pty_line() -> Iterator[Callable[[list[Egm]], PtyLine]]:
    lines: list[PtyLine] = []

    def start(machines: list[Egm]) -> PtyLine:
        line = PtyLine(machines)
        line.thread.start()
        lines.append(line)
        return line

    yield start
    for line in lines:
        line.close()


@pytest.fixture
def store_path(tmp_path) -> Iterator[str]:
    """A store file on tmpfs when there is one: the store fsyncs every event, a disk makes tests slow."""
    import shutil
    import tempfile

    base = "/dev/shm" if os.path.isdir("/dev/shm") else str(tmp_path)
    folder = tempfile.mkdtemp(dir=base)
    yield os.path.join(folder, "events.sqlite3")
    shutil.rmtree(folder, ignore_errors=True)
