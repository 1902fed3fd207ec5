"""One link and two sites, each an installation of its own: a PostgreSQL cluster and a Redis of the test's
own, one database and one Redis db per installation (cloned from one migrated template, so the three
migrate once), the link's uvicorn, worker and beat (tests/slots/fault_stack.py), each site's uvicorn, its
forwarder (``link_forward``) and its pool listener (``link_listen``) as processes the test can kill."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

import psycopg
import pytest

from bench.stack import Stack
from tests.slots.fault_stack import FaultStack, PrivatePostgres, PrivateRedis, manage

# Long enough that a site cut off for the test's outage is waited for, not passed by: its rounds are
# then applied in the order of play when it is back (the settle rule, docs/wide-area.md).
SETTLE_SECONDS = 120
# The test's rounds are posted as they are played; a line back is tried again within a second.
LINK_ENV = {
    "LINK_THROUGH_SECONDS": "0.5",
    "LINK_THROUGH_LAG_SECONDS": "1",
    "LINK_SILENCE_SECONDS": "3",
    "LINK_HEARTBEAT_SECONDS": "1",
    "LINK_FORWARD_POLL_SECONDS": "0.2",
    "LINK_BACKOFF_MAX_SECONDS": "1",
}
SITES = {"VEN": ("EUR", None), "LUG": ("CHF", "0.93500000")}


@dataclass
class Site:
    code: str
    currency: str
    rate: str | None
    database_url: str
    redis_url: str
    stack: Stack
    setup: dict
    forwarder: subprocess.Popen | None = None
    listener: subprocess.Popen | None = None
    spawned: list[subprocess.Popen] = field(default_factory=list)

    def _command(self, name: str) -> subprocess.Popen:
        process = self.stack._spawn(f"{name}-{self.code}", [sys.executable, "manage.py", name])
        self.spawned.append(process)
        return process

    def forwarder_start(self) -> None:
        self.forwarder = self._command("link_forward")

    def forwarder_kill(self) -> None:
        """SIGKILL: no goodbye, whatever it was doing (a post on the wire, an ack not yet written)."""
        assert self.forwarder is not None
        self.forwarder.send_signal(signal.SIGKILL)
        self.forwarder.wait()

    def listener_start(self) -> None:
        self.listener = self._command("link_listen")

    def query(self, sql: str) -> list[tuple]:
        with psycopg.connect(self.database_url.replace("postgres://", "postgresql://")) as conn:
            return conn.execute(sql).fetchall()

    def stop(self) -> None:
        for process in self.spawned:
            if process.poll() is None:
                process.kill()
                process.wait()
        self.stack.stop()


@dataclass
class WideArea:
    postgres: PrivatePostgres
    link: FaultStack
    link_url: str
    link_setup: dict
    sites: dict[str, Site]
    link_env: dict[str, str]  # the link's environment, for its management commands

    def link_query(self, sql: str) -> list[tuple]:
        with psycopg.connect(self.link_url.replace("postgres://", "postgresql://")) as conn:
            return conn.execute(sql).fetchall()


def _database(postgres: PrivatePostgres, name: str, template: str | None = None) -> str:
    with psycopg.connect(
        host="127.0.0.1", port=postgres.port, user="postgres", dbname="postgres", autocommit=True
    ) as conn:
        conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    return f"postgres://postgres@127.0.0.1:{postgres.port}/{name}"


def _env(database_url: str, redis_url: str) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.test_settings",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CELERY_TASK_ALWAYS_EAGER": "0",
        **LINK_ENV,
    }


@pytest.fixture(scope="module")
def wide() -> Iterator[WideArea]:
    postgres, redis = PrivatePostgres().start(), PrivateRedis().start()
    redis_base = redis.url.rsplit("/", 1)[0]
    started: list = []
    try:
        template = postgres.url  # the cluster's "progressivo": migrated once, then copied
        manage(_env(template, f"{redis_base}/0"), "manage.py", "migrate", "--no-input", "-v0")
        link_url = _database(postgres, "link", "progressivo")
        link_env = _env(link_url, f"{redis_base}/1")
        link_setup = json.loads(
            manage(link_env, "-m", "tests.wide_area_e2e.setup", "link", str(SETTLE_SECONDS),
                   *(f"{code}:{currency}" for code, (currency, _) in SITES.items()))
        )  # fmt: skip
        link = FaultStack(link_url, f"{redis_base}/1", extra_env=LINK_ENV)
        started.append(link.start())
        sites = {}
        for db, (code, (currency, rate)) in enumerate(SITES.items(), start=2):
            url, redis_url = _database(postgres, f"site_{code.lower()}", "progressivo"), f"{redis_base}/{db}"
            setup = json.loads(
                manage(_env(url, redis_url), "-m", "tests.wide_area_e2e.setup", "site", code, currency,
                       link.url, link_setup["keys"][code], *([rate] if rate else []))
            )  # fmt: skip
            stack = Stack(url, redis_url, extra_env=LINK_ENV)
            stack.server_spawn()
            stack._wait_http()
            site = Site(code, currency, rate, url, redis_url, stack, setup)
            started.append(site)
            site.forwarder_start()
            site.listener_start()
            sites[code] = site
        yield WideArea(postgres, link, link_url, link_setup, sites, link_env)
    finally:
        for running in reversed(started):
            running.stop()
        redis.stop()
        postgres.stop()
