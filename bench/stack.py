"""The real stack on this machine, for the end-to-end test and the benchmarks: uvicorn serving the ASGI
application and a Celery worker, both against a given PostgreSQL database and Redis db, on a free port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def url_with_database(server_url: str, name: str) -> str:
    """``server_url`` (a postgres:// URL) naming the database ``name`` instead of its own."""
    return urlparse(server_url)._replace(path=f"/{name}").geturl()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Stack:
    database_url: str
    redis_url: str
    settings_module: str = "config.test_settings"
    worker_pool: str = "solo"
    worker_concurrency: int = 1
    extra_env: dict[str, str] = field(default_factory=dict)
    server_args: list[str] = field(default_factory=list)
    port: int = field(default_factory=free_port)
    processes: list[subprocess.Popen] = field(default_factory=list)
    log_dir: Path = ROOT / "test-artifacts"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            {
                "DJANGO_SETTINGS_MODULE": self.settings_module,
                "DATABASE_URL": self.database_url,
                "REDIS_URL": self.redis_url,
                "CELERY_TASK_ALWAYS_EAGER": "0",
                "PYTHONUNBUFFERED": "1",
                **self.extra_env,
            }
        )
        return env

    def _spawn(self, name: str, args: list[str]) -> subprocess.Popen:
        self.log_dir.mkdir(exist_ok=True)
        log = open(self.log_dir / f"{name}-{self.port}.log", "wb")  # noqa: SIM115 - closed with the process
        process = subprocess.Popen(args, cwd=ROOT, env=self.env(), stdout=log, stderr=subprocess.STDOUT)
        self.processes.append(process)
        return process

    def start(self) -> Stack:
        """The server and the worker start side by side (each takes seconds to import the project)."""
        self.server_spawn()
        self.worker = self._spawn(
            "celery",
            [str(BIN / "celery"), "-A", "config", "worker", "--loglevel", "WARNING",
             "--pool", self.worker_pool, "--concurrency", str(self.worker_concurrency),
             "--without-heartbeat", "--without-gossip", "--without-mingle"],
        )  # fmt: skip
        self._wait_http()
        self._wait_worker()
        return self

    def server_stop(self) -> None:
        self.server.terminate()
        self.server.wait(timeout=10)
        self.processes.remove(self.server)

    def server_start(self) -> None:
        self.server_spawn()
        self._wait_http()

    def server_spawn(self) -> None:
        self.server = self._spawn(
            "uvicorn",
            [str(BIN / "uvicorn"), "config.asgi:application", "--host", "127.0.0.1", "--port", str(self.port),
             "--log-level", "warning", "--no-access-log", "--ws-per-message-deflate", "false",
             *self.server_args],
        )  # fmt: skip

    def _wait_http(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.server.poll() is not None:
                raise RuntimeError(f"uvicorn exited with {self.server.returncode}; see {self.log_dir}")
            try:
                urllib.request.urlopen(f"{self.url}/api/v1/jackpots", timeout=2).read()
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("uvicorn did not answer in time")

    def _wait_worker(self, timeout: float = 30) -> None:
        import redis

        client = redis.Redis.from_url(self.redis_url)
        db = str(client.connection_pool.connection_kwargs.get("db", 0))
        deadline = time.monotonic() + timeout
        # The worker is ready when it consumes from the default queue.
        while time.monotonic() < deadline:
            if self.worker.poll() is not None:
                raise RuntimeError(f"the Celery worker exited with {self.worker.returncode}")
            clients = client.client_list()
            if any(c.get("cmd") == "brpop" and c.get("db") == db for c in clients):
                return
            time.sleep(0.2)
        raise RuntimeError("the Celery worker did not start in time")

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes.clear()

    def __enter__(self) -> Stack:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
