"""GET /healthz: 200 with every component up, 503 JSON naming what is down."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from celery.app.control import Control
from django.conf import settings
from django.db import OperationalError
from django.test import Client, override_settings

import workspace.health
from common.heartbeats import beat_heartbeat_record, worker_heartbeat_clear, worker_heartbeat_record
from common.shared_redis import BEAT_KEY, WORKERS_KEY, shared_redis

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


class _UnreachableDatabase:
    vendor = "postgresql"

    def cursor(self):
        raise OperationalError('connection to server at "127.0.0.1", port 5432 failed: Connection refused')


@override_settings(CELERY_TASK_ALWAYS_EAGER=True)
def test_up(client: Client) -> None:
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    expected_redis = {"ok": True, "configured": settings.USING_REDIS}
    assert response.json() == {
        "status": "ok",
        "database": {"ok": True, "engine": "postgresql" if settings.USING_POSTGRES else "sqlite"},
        "redis": expected_redis,
        "celery": {"ok": True, "mode": "eager"},
        "beat": {"ok": True, "mode": "eager"},
    }


@override_settings(CELERY_TASK_ALWAYS_EAGER=True)
def test_database_unreachable(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workspace.health, "connection", _UnreachableDatabase())
    response = client.get("/healthz")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "down"
    assert body["database"] == {
        "ok": False,
        "error": 'connection to server at "127.0.0.1", port 5432 failed: Connection refused',
    }
    assert body["celery"] == {"ok": True, "mode": "eager"}


@override_settings(USING_REDIS=True, REDIS_URL="redis://127.0.0.1:1/0", CELERY_TASK_ALWAYS_EAGER=True)
def test_redis_unreachable(client: Client) -> None:
    response = client.get("/healthz")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "down"
    assert body["redis"]["ok"] is False
    assert body["redis"]["configured"] is True
    assert "127.0.0.1:1" in body["redis"]["error"]
    assert body["database"]["ok"] is True


@override_settings(CELERY_TASK_ALWAYS_EAGER=False)
def test_no_celery_worker(client: Client, heartbeats_cleared) -> None:
    response = client.get("/healthz")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "down"
    if settings.USING_REDIS:
        assert body["celery"] == {"ok": False, "mode": "worker", "workers": 0}
        assert body["beat"] == {"ok": False, "age_seconds": None}
    else:
        assert body["celery"] == {
            "ok": False,
            "mode": "worker",
            "error": "no REDIS_URL: workers cannot be reached",
        }


@pytest.fixture
def heartbeats_cleared():
    client = shared_redis()
    if client is not None:
        client.delete(WORKERS_KEY, BEAT_KEY)
    yield client
    if client is not None:
        client.delete(WORKERS_KEY, BEAT_KEY)


@pytest.fixture
def no_broadcast(monkeypatch: pytest.MonkeyPatch) -> None:
    """Asking the workers over the broker (a Celery ping) waits out its whole timeout on every call."""

    def refused(*args, **kwargs):
        raise AssertionError("/healthz must not broadcast to the workers")

    monkeypatch.setattr(Control, "broadcast", refused)
    monkeypatch.setattr(Control, "ping", refused)


@pytest.mark.redis
@override_settings(CELERY_TASK_ALWAYS_EAGER=False)
def test_workers_and_beat_are_read_from_their_heartbeats_without_asking_the_workers(
    client: Client, heartbeats_cleared, no_broadcast
) -> None:
    worker_heartbeat_record("celery@floor-1")
    beat_heartbeat_record()
    response = client.get("/healthz")

    assert response.status_code == 200
    body = response.json()
    assert body["celery"] == {"ok": True, "mode": "worker", "workers": 1}
    assert body["beat"]["ok"] is True
    assert 0 <= body["beat"]["age_seconds"] < 5


@pytest.mark.redis
@override_settings(CELERY_TASK_ALWAYS_EAGER=False)
def test_beat_silent_too_long_is_down(client: Client, heartbeats_cleared, no_broadcast) -> None:
    """Without beat nothing applies events a lost engine notification left pending: /healthz says so."""
    worker_heartbeat_record("celery@floor-1")
    heartbeats_cleared.set(BEAT_KEY, time.time() - 60)
    response = client.get("/healthz")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "down"
    assert body["celery"] == {"ok": True, "mode": "worker", "workers": 1}
    assert body["beat"]["ok"] is False
    assert 60 <= body["beat"]["age_seconds"] < 65


@pytest.mark.redis
@override_settings(CELERY_TASK_ALWAYS_EAGER=False)
def test_a_worker_silent_too_long_is_not_counted(client: Client, heartbeats_cleared, no_broadcast) -> None:
    beat_heartbeat_record()
    heartbeats_cleared.zadd(WORKERS_KEY, {"celery@gone": time.time() - 16, "celery@floor-2": time.time()})
    body = client.get("/healthz").json()
    assert body["celery"] == {"ok": True, "mode": "worker", "workers": 1}
    worker_heartbeat_clear("celery@floor-2")
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["celery"] == {"ok": False, "mode": "worker", "workers": 0}


def test_only_get(client: Client) -> None:
    assert client.post("/healthz").status_code == 405


@pytest.mark.redis
@override_settings(CELERY_TASK_ALWAYS_EAGER=False)
def test_up_with_a_real_worker(client: Client, heartbeats_cleared, no_broadcast) -> None:
    beat_heartbeat_record()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.test_settings"}
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--concurrency", "1",
         "--without-gossip", "--without-mingle", "--hostname", f"healthz-test-{os.getpid()}@%h",
         "--loglevel", "WARNING"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            response = client.get("/healthz")
            if response.status_code == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert response.status_code == 200
        body = response.json()
        assert body["celery"]["ok"] is True
        assert body["celery"]["mode"] == "worker"
        assert body["celery"]["workers"] >= 1
        assert body["redis"] == {"ok": True, "configured": True}
    finally:
        worker.terminate()
        worker.wait(timeout=30)
