"""Faults under load, on a PostgreSQL cluster and a Redis of the tests' own (tests/slots/fault_stack.py),
with the real uvicorn, Celery worker and beat: Redis killed and restarted, PostgreSQL restarted, the worker
SIGKILLed, beat gone. Machines post games all along and retry a batch until it is answered 200; every
acknowledged event must be applied exactly once within 10 s of the recovery, with no later request."""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

import pytest

from tests.slots.fault_stack import FaultStack, Load, PrivatePostgres, PrivateRedis, manage

pytestmark = [pytest.mark.postgres, pytest.mark.redis]

RECOVERY_SECONDS = 10


@dataclass
class Faults:
    postgres: PrivatePostgres
    redis: PrivateRedis
    stack: FaultStack
    load: Load
    level: int


@pytest.fixture(scope="module")
def faults():
    postgres = PrivatePostgres().start()
    redis = PrivateRedis().start()
    stack = None
    try:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.test_settings",
            "DATABASE_URL": postgres.url,
            "REDIS_URL": redis.url,
            "CELERY_TASK_ALWAYS_EAGER": "0",
        }
        manage(env, "manage.py", "migrate", "--no-input", "-v0")
        floor = json.loads(manage(env, "-m", "tests.slots.fault_floor", "8"))
        stack = FaultStack(postgres.url, redis.url, extra_env={"DATABASE_POOL_SIZE": "4"})
        stack.start()
        yield Faults(postgres, redis, stack, Load(stack.url, floor["key"], floor["machines"]), floor["level"])
    finally:
        if stack is not None:
            stack.stop()
        redis.stop()
        postgres.stop()


def applied_exactly_once(faults: Faults, since: float) -> float:
    """Waits until every acknowledged event is applied; returns how long that took after ``since``."""
    load, postgres = faults.load, faults.postgres
    deadline = since + RECOVERY_SECONDS
    while True:
        ((stored, pending, unapplied),) = postgres.query(
            "SELECT count(*), count(*) FILTER (WHERE pending), count(*) FILTER (WHERE applied_at IS NULL) "
            "FROM slots_machineevent"
        )
        if (stored, pending, unapplied) == (load.events, 0, 0) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert (stored, pending, unapplied) == (load.events, 0, 0), postgres.query(
        "SELECT pid, state, backend_type, now() - xact_start, left(query, 80) FROM pg_stat_activity "
        "WHERE datname = 'progressivo'"
    )
    assert postgres.query("SELECT count(*) FROM slots_pendingevent") == [(0,)]
    assert postgres.query("SELECT coalesce(sum(event_count), 0) FROM jackpots_contributionbatch") == [
        (load.events,)
    ]
    assert postgres.query(f"SELECT wagered_cents FROM jackpots_level WHERE id = {faults.level}") == [
        (load.wagered,)
    ]
    assert load.bad_answers == [], "a 500, an answer without JSON or Retry-After, or events lost"
    return time.monotonic() - since


def health(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def healthy_within(url: str, seconds: float) -> dict:
    deadline = time.monotonic() + seconds
    status, body = health(url)
    while status != 200 and time.monotonic() < deadline:
        time.sleep(0.2)
        status, body = health(url)
    assert status == 200, body
    return body


def test_redis_killed_and_restarted_under_load(faults: Faults) -> None:
    faults.load.start()
    time.sleep(1.5)
    faults.redis.kill()
    answered_before = faults.load.statuses.get(200, 0)
    time.sleep(3)
    assert faults.load.statuses.get(200, 0) > answered_before, (
        "events are stored and answered while Redis is down"
    )
    faults.redis.start()
    recovered = time.monotonic()
    time.sleep(1.5)
    faults.load.finish()

    print(f"Redis: applied {applied_exactly_once(faults, recovered):.1f} s after its restart")
    body = healthy_within(faults.stack.url, RECOVERY_SECONDS)
    assert body["celery"]["workers"] == 1


def test_postgres_restarted_under_load(faults: Faults) -> None:
    faults.load.start()
    time.sleep(1.5)
    faults.postgres.restart()
    recovered = time.monotonic()
    time.sleep(1.5)
    faults.load.finish()

    print(f"PostgreSQL: applied {applied_exactly_once(faults, recovered):.1f} s after its restart")
    assert faults.load.statuses.get(500, 0) == 0


def test_worker_killed_under_load(faults: Faults) -> None:
    faults.load.start()
    time.sleep(1.5)
    starts = faults.stack.log("worker").count(" ready.")
    os.kill(faults.stack.supervised_pid(faults.stack.worker), signal.SIGKILL)
    time.sleep(1.5)
    faults.load.finish()
    # Recovered when scripts/supervise has the worker consuming again (a Celery start takes seconds).
    deadline = time.monotonic() + 30
    while faults.stack.log("worker").count(" ready.") == starts and time.monotonic() < deadline:
        time.sleep(0.1)
    recovered = time.monotonic()

    print(f"Worker: applied {applied_exactly_once(faults, recovered):.1f} s after its restart")
    assert healthy_within(faults.stack.url, RECOVERY_SECONDS)["celery"]["workers"] >= 1


def test_without_beat_no_event_waits_for_a_later_request(faults: Faults) -> None:
    """Beat is gone: the last events of the load are applied all the same, by the run their own requests
    asked for (the engine notification is never skipped for good)."""
    faults.stack.stop_one(faults.stack.beat)
    faults.load.start()
    time.sleep(2)
    faults.load.finish()
    last = faults.load.acknowledged_at

    assert applied_exactly_once(faults, last) < 3
