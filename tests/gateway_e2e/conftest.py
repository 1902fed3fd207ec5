"""The real stack for the gateway end-to-end tests: a PostgreSQL cluster and a Redis of their own,
uvicorn, a Celery worker and beat (tests/slots/fault_stack.py), emulated SAS machines on pseudo-terminal
pairs in this process, and the gateway as its own process (it is SIGKILLed in a test)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bench.stack import ROOT
from gateway.egm.config import EgmConfig
from gateway.egm.machine import Egm
from gateway.tests.helpers import EGM_VARIANTS, PtyLine, wait_for
from tests.slots.fault_stack import FaultStack, PrivatePostgres, PrivateRedis, manage

MACHINES = 4
# Each machine reads SAS its own way within the standard (issue 22): the first, which locks up in a
# handpay, is the independent machine's reading (events in place of long polls' answers, silent when idle).
VARIANTS = ["independent", "ff00-5byte", "silent-5byte", "ours"]
SETTLE = 1.0  # seconds the server must hold every seq the gateway gave, unchanged, before all is delivered


class RecordingEgm(Egm):
    """An emulated machine that also remembers every exception it raised (53 must never be one) and
    every legacy bonus it credited."""

    def __init__(self, config: EgmConfig, now: float) -> None:
        self.raised: list[int] = []
        self.bonuses: list[int] = []  # credits of every legacy bonus paid
        super().__init__(config, now)

    def raise_exception(self, code: int, data: bytes = b"") -> None:
        self.raised.append(code)
        super().raise_exception(code, data)

    def _bonus_paid(self, credits: int) -> None:
        self.bonuses.append(credits)
        super()._bonus_paid(credits)


def emulated(index: int) -> RecordingEgm:
    """The machines of floor.py: the first locks up in a handpay for a Grand (limit EUR 500)."""
    config = EgmConfig(
        address=1 + index % 2,
        denomination=50,
        group=1,
        levels=[1, 2],
        handpay_limit=50_000 if index == 0 else 200_000,
        seed=index,
        spin=0.0,
        **EGM_VARIANTS[VARIANTS[index % len(VARIANTS)]],
    )
    return RecordingEgm(config, now=time.monotonic())


@dataclass
class Floor:
    key: str
    sas: list[str]
    json: list[str]
    levels: dict[str, int]


class GatewayProcess:
    """`python -m gateway` over the given lines, with its own store file; killable, restartable."""

    def __init__(self, url: str, key: str, lines: dict[str, str], folder: Path) -> None:
        self.folder = folder
        self.store = str(folder / "events.sqlite3")
        self.config = folder / "gateway.toml"
        self.config.write_text(self._toml(url, key, lines))
        self.process: subprocess.Popen | None = None
        self.log = folder / "gateway.log"

    def _toml(self, url: str, key: str, lines: dict[str, str]) -> str:
        """The machines and groups come from the server's map; this file names the lines' devices."""
        websocket = url.replace("http://", "ws://") + f"/ws/gateway/?token={key}"
        text = (
            f'[server]\nurl = "{url}"\nkey = "{key}"\nstore = "{self.store}"\nwebsocket = "{websocket}"\n'
            'config = "api"\n\n[machine_defaults]\nmeters_every = 3600\n'
        )
        for name, device in lines.items():
            text += f'\n[[lines]]\nname = "{name}"\ndevice = "{device}"\nwakeup = "none"\n'
            text += "first_byte = 0.2\ngap = 0.1\n"
        return text

    def start(self) -> GatewayProcess:
        log = open(self.log, "ab")  # noqa: SIM115 - closed with the process
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gateway", "--config", str(self.config)],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        return self

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def backlog(self) -> int:
        """Events captured and not yet accounted for by the server (read beside the running gateway)."""
        with sqlite3.connect(self.store, timeout=5) as db:
            return db.execute("SELECT count(*) FROM outbox").fetchone()[0]

    def rejected(self) -> list[tuple]:
        with sqlite3.connect(self.store, timeout=5) as db:
            return db.execute("SELECT body, error FROM rejected").fetchall()

    def seqs(self) -> dict[str, int]:
        """The last seq the gateway gave each machine: every event it ever captured."""
        with sqlite3.connect(self.store, timeout=5) as db:
            return dict(db.execute("SELECT machine, seq FROM machine_seq").fetchall())

    def games_lost_on_line(self, code: str) -> int | None:
        """Games of ``code`` the gateway logged as lost on the serial line, before anything was captured: a
        7F whose 7E never came, or a 7E while the last game was open (its 7F never came). A machine
        answering a general poll later than the host waits (which a loaded test machine can stretch past
        the tests' 0.2 s) cannot be told, when it is silent when idle, from one with nothing to report, and
        the next frame on the line acknowledges the answer the host never read. At most that many: a 7F
        repeated after a kill also ends no open game. None when the machine's queue overflowed: it does not
        say how many it lost."""
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        if f"{code}: exception queue overflow" in text:
            return None
        return text.count(f"{code}: game ended without its start") + text.count(
            f"{code}: game started before the last one ended"
        )


def in_order_within(kept: list, played: list) -> bool:
    """Every item of ``kept`` found in ``played``, in the same order."""
    rest = iter(played)
    return all(any(item == other for other in rest) for item in kept)


@dataclass
class E2E:
    postgres: PrivatePostgres
    stack: FaultStack
    floor: Floor
    egms: dict[str, RecordingEgm]
    lines: list[PtyLine]
    gateway: GatewayProcess
    env: dict[str, str]

    def query(self, sql: str, *args: object) -> list[tuple]:
        return self.postgres.query(sql % args if args else sql)

    def applied_events(self, machines: list[str]) -> list[tuple]:
        """(machine, seq, type, wager) of the machines' applied events, in seq order."""
        codes = ", ".join(f"'{m}'" for m in machines)
        return self.query(
            "SELECT m.asset_number, e.seq, e.type, e.wager_cents FROM slots_machineevent e "
            "JOIN slots_slotmachine m ON m.id = e.machine_id "
            f"WHERE m.asset_number IN ({codes}) ORDER BY m.asset_number, e.seq"
        )

    def all_delivered(self, timeout: float = 20) -> None:
        """Waits until every machine reported its exceptions, the server applied every event the gateway
        numbered and the gateway's store is empty; no event may have been rejected. An event that never
        arrives ends the wait in an AssertionError that names it."""
        # and their wins: a machine that answers long polls with its events (rte_preempts) has its wins
        # read a turn or two after its queue emptied
        wait_for(
            lambda: not any(egm.queue or egm.unacked or egm.wins for egm in self.egms.values()),
            timeout,
            "the machines' exceptions and wins",
        )
        # The machines are quiet, but the gateway may still keep an event: the meters it reads after some
        # exceptions, or one it numbers just after the machine let go of it (CI, loaded, once numbered seq 36
        # half a second after the store read empty). Done is the server holding every seq the gateway gave,
        # nothing pending and the store empty, twice across SETTLE seconds with the same seqs.
        deadline = time.monotonic() + timeout
        seen: dict[str, int] | None = None
        while True:
            missing = self.undelivered()
            if missing is None and seen == (seen := self.gateway.seqs()):
                break
            if missing is not None:
                seen = None
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"not delivered after {timeout} s: {missing or 'the gateway still numbering'}"
                )
            time.sleep(SETTLE if missing is None else 0.1)
        assert self.gateway.rejected() == []

    def undelivered(self) -> str | None:
        """What the server does not hold yet, or None when it holds every event the gateway numbered."""
        if backlog := self.gateway.backlog():
            return f"{backlog} events in the gateway's store"
        if pending := self.query("SELECT machine_id, seq, type, at FROM slots_machineevent WHERE pending"):
            return f"games or jackpots not applied: {pending!r}"
        held = dict(
            self.query(
                "SELECT m.asset_number, max(e.seq) FROM slots_machineevent e "
                "JOIN slots_slotmachine m ON m.id = e.machine_id GROUP BY 1"
            )
        )
        numbered = self.gateway.seqs()
        behind = {
            code: (held.get(code, 0), seq) for code, seq in numbered.items() if held.get(code, 0) != seq
        }
        return f"the server's last seq against the gateway's: {behind}" if behind else None


@dataclass
class Running:
    """What real_stack started; lines and a gateway the caller adds are stopped with it."""

    postgres: PrivatePostgres
    env: dict[str, str]
    floor: dict
    stack: FaultStack | None = None
    lines: list[PtyLine] = field(default_factory=list)
    gateway: GatewayProcess | None = None

    def close(self) -> None:
        if self.gateway is not None:
            self.gateway.stop()
        for line in self.lines:
            line.close()
        if self.stack is not None:
            self.stack.stop()


@contextmanager
def real_stack(machines: int, per_line: int = 2) -> Iterator[Running]:
    """PostgreSQL and Redis of their own, migrated, with the floor of floor.py; uvicorn, worker and beat."""
    postgres, redis = PrivatePostgres().start(), PrivateRedis().start()
    running = None
    try:
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.test_settings", "DATABASE_URL": postgres.url}
        env |= {"REDIS_URL": redis.url, "CELERY_TASK_ALWAYS_EAGER": "0"}
        manage(env, "manage.py", "migrate", "--no-input", "-v0")
        floor = json.loads(manage(env, "-m", "tests.gateway_e2e.floor", str(machines), str(per_line)))
        running = Running(postgres, env, floor)
        running.stack = FaultStack(postgres.url, redis.url, extra_env={"DATABASE_POOL_SIZE": "4"}).start()
        yield running
    finally:
        if running is not None:
            running.close()
        redis.stop()
        postgres.stop()


def scratch_folder(prefix: str) -> Path:
    """On tmpfs when there is one: the gateway's store fsyncs every event."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir="/dev/shm" if os.path.isdir("/dev/shm") else None))


@pytest.fixture(scope="package")
def e2e() -> Iterator[E2E]:
    with real_stack(MACHINES) as running:
        raw = running.floor
        floor = Floor(raw["key"], raw["machines"]["sas"], raw["machines"]["json"], raw["levels"])
        egms = {code: emulated(i) for i, code in enumerate(floor.sas)}
        by_line: dict[str, str] = {}
        for pair in range(0, len(floor.sas), 2):  # two machines per line: multi-drop addressing too
            line = PtyLine([egms[c] for c in floor.sas[pair : pair + 2]])
            line.thread.start()
            running.lines.append(line)
            by_line[f"line-{1 + pair // 2}"] = line.device
        running.gateway = GatewayProcess(
            running.stack.url, floor.key, by_line, scratch_folder("gateway-e2e-")
        )
        running.gateway.start()
        for egm in egms.values():
            wait_for(lambda egm=egm: egm.rte and egm.progressive_enabled, 30, "sessions and broadcasts")
            egm.raised.clear()
        yield E2E(running.postgres, running.stack, floor, egms, running.lines, running.gateway, running.env)
