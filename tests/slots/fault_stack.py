"""The private services of the fault tests: a PostgreSQL cluster and a redis-server of their own on free
ports (the tests kill and restart them), the real stack over them (uvicorn, a Celery worker and beat, each
under scripts/supervise as in scripts/run), and a load of machines posting games that retry until their
batch is answered 200, as machines do."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import psycopg

from bench.stack import BIN, ROOT, Stack, free_port

PG_BIN = Path("/usr/lib/postgresql/15/bin")


def as_postgres(*args: str) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else list(args)


class PrivatePostgres:
    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="progressivo-faults-pg-"))
        shutil.chown(self.dir, "postgres") if os.geteuid() == 0 else None
        self.data = self.dir / "data"
        self.port = free_port()
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/progressivo"

    def _ctl(self, *args: str) -> None:
        subprocess.run(
            as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(self.data), *args),
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60,
        )

    def start(self) -> PrivatePostgres:
        subprocess.run(
            as_postgres(
                str(PG_BIN / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync"
            ),
            check=True,
            stdout=subprocess.DEVNULL,
            timeout=120,
        )
        self._ctl(
            "-o",
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c max_connections=60",
            "-l",
            str(self.dir / "log"),
            "-w",
            "start",
        )
        with psycopg.connect(
            host="127.0.0.1", port=self.port, user="postgres", dbname="postgres", autocommit=True
        ) as conn:
            conn.execute("CREATE DATABASE progressivo")
        return self

    def restart(self) -> None:
        self._ctl("-m", "fast", "-w", "restart")

    def stop(self) -> None:
        try:
            self._ctl("-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def query(self, sql: str) -> list[tuple]:
        with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="progressivo") as conn:
            return conn.execute(sql).fetchall()


class PrivateRedis:
    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> PrivateRedis:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while (
            subprocess.run(
                ["redis-cli", "-p", str(self.port), "ping"], check=False, capture_output=True
            ).stdout
            != b"PONG\n"
        ):
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)
        return self

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.kill()


@dataclass
class FaultStack(Stack):
    """Stack's uvicorn, with the worker (prefork) and beat each under scripts/supervise."""

    def start(self) -> FaultStack:
        """Server, worker and beat start side by side; ready once the server answers and the worker
        listens."""
        self.server_spawn()
        self.worker = self._spawn(
            "worker",
            [
                str(ROOT / "scripts" / "supervise"),
                str(BIN / "celery"),
                "-A",
                "config",
                "worker",
                "--loglevel",
                "INFO",
                "--concurrency",
                "1",
                "--without-gossip",
                "--without-mingle",
                "--hostname",
                f"faults-{self.port}@%h",
            ],
        )
        self.beat = self.beat_start()
        self._wait_http()
        self._wait_worker()
        return self

    def beat_start(self) -> subprocess.Popen:
        schedule = self.log_dir / f"beat-schedule-{self.port}"
        return self._spawn(
            "beat",
            [
                str(ROOT / "scripts" / "supervise"),
                str(BIN / "celery"),
                "-A",
                "config",
                "beat",
                "--loglevel",
                "INFO",
                "--schedule",
                str(schedule),
            ],
        )

    def supervised_pid(self, supervisor: subprocess.Popen) -> int:
        """The command's process under a scripts/supervise (its only child)."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            children = subprocess.run(
                ["pgrep", "-P", str(supervisor.pid)], check=False, capture_output=True, text=True
            ).stdout
            if children.split():
                return int(children.split()[0])
            time.sleep(0.1)
        raise RuntimeError("no supervised process")

    def log(self, name: str) -> str:
        return (self.log_dir / f"{name}-{self.port}.log").read_text(errors="replace")

    def stop_one(self, process: subprocess.Popen) -> None:
        process.terminate()
        process.wait(timeout=20)
        self.processes.remove(process)


@dataclass
class Load:
    """Machines posting games in batches; each batch is retried until it is answered 200."""

    url: str
    key: str
    machines: list[str]
    batch: int = 20
    seq: dict[str, int] = field(default_factory=dict)
    statuses: dict[int, int] = field(default_factory=dict)
    bad_answers: list[str] = field(default_factory=list)
    wagered: int = 0
    events: int = 0
    acknowledged_at: float = 0.0

    def __post_init__(self) -> None:
        self.stop = threading.Event()
        self.threads: list[threading.Thread] = []

    def start(self, clients: int = 2) -> Load:
        self.stop.clear()
        for index in range(clients):
            thread = threading.Thread(target=self._run, args=(self.machines[index::clients],), daemon=True)
            thread.start()
            self.threads.append(thread)
        return self

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=60)
        self.threads.clear()

    def _run(self, machines: list[str]) -> None:
        turn = 0
        while not self.stop.is_set():
            machine = machines[turn % len(machines)]
            turn += 1
            first = self.seq.get(machine, 0) + 1
            self.seq[machine] = first + self.batch - 1
            at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
            games = [
                {
                    "machine": machine,
                    "seq": first + i,
                    "at": at,
                    "type": "game",
                    "wager": 50 + (first + i) % 400,
                    "win": 0,
                }
                for i in range(self.batch)
            ]
            self._post_until_acknowledged(games)
            self.wagered += sum(game["wager"] for game in games)
            self.events += len(games)

    def _post_until_acknowledged(self, games: list[dict]) -> None:
        body = json.dumps({"events": games}).encode()
        while True:
            request = urllib.request.Request(
                f"{self.url}/api/v1/events",
                data=body,
                headers={"Authorization": f"Bearer {self.key}", "Content-Type": "application/json"},
            )
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    answer = json.loads(response.read())
                    self._count(200)
                    if answer["accepted"] + answer["duplicates"] != len(games) or answer["rejected"]:
                        self.bad_answers.append(f"200 {answer}")
                    self.acknowledged_at = time.monotonic()
                    return
            except urllib.error.HTTPError as error:
                self._count(error.code)
                content = error.read()
                if error.code != 503 or error.headers.get("Retry-After") is None:
                    self.bad_answers.append(
                        f"{error.code} {error.headers.get('Content-Type')} {content[:200]!r}"
                    )
                else:
                    json.loads(content)  # a JSON body, or the test fails
            except OSError:
                self._count(0)  # no answer at all (server restarting): the machine retries
            time.sleep(0.1)

    def _count(self, status: int) -> None:
        self.statuses[status] = self.statuses.get(status, 0) + 1


def manage(env: dict[str, str], *args: str) -> str:
    completed = subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    if completed.returncode != 0:
        raise RuntimeError(f"{args} failed: {completed.stderr[-2000:]}")
    return completed.stdout
