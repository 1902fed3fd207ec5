"""Reads of the floor app."""

from __future__ import annotations

import time

from django.conf import settings
from django.db import connection

from common.shared_redis import BEAT_KEY, WORKERS_KEY, shared_redis

# A worker or beat silent this long is down (they write every WORKER_HEARTBEAT_SECONDS / every tick).
HEARTBEAT_STALE_AFTER_SECONDS = 15


def _database_ok() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        return {"ok": False, "error": str(exc)[:200]}
    return {"ok": True, "engine": connection.vendor}


def _redis_ok(client) -> dict:
    try:
        client.ping()
    except Exception as exc:
        return {"ok": False, "configured": True, "error": str(exc)[:200]}
    return {"ok": True, "configured": True}


def _heartbeats(client, now: float) -> tuple[dict, dict]:
    """The worker and beat checks from their heartbeats in Redis: one round trip, no broadcast to the
    workers (a Celery ping waits out its whole timeout, 1 s, on every call)."""
    try:
        with client.pipeline(transaction=False) as pipe:
            pipe.zcount(WORKERS_KEY, now - HEARTBEAT_STALE_AFTER_SECONDS, "+inf")
            pipe.get(BEAT_KEY)
            workers, beat_at = pipe.execute()
    except Exception as exc:
        error = str(exc)[:200]
        return {"ok": False, "mode": "worker", "error": error}, {"ok": False, "error": error}
    age = None if beat_at is None else round(max(0.0, now - float(beat_at)), 1)
    celery = {"ok": workers > 0, "mode": "worker", "workers": workers}
    beat = {"ok": age is not None and age <= HEARTBEAT_STALE_AFTER_SECONDS, "age_seconds": age}
    return celery, beat


def health_report() -> dict:
    """Database, Redis, the consuming workers and beat. Eager (no worker, the embedded default) has no
    worker or beat to check; the floor ticker stands in for beat in its own process."""
    client = shared_redis()
    checks = {"database": _database_ok()}
    checks["redis"] = {"ok": True, "configured": False} if client is None else _redis_ok(client)
    if settings.CELERY_TASK_ALWAYS_EAGER:
        checks["celery"] = {"ok": True, "mode": "eager"}
        checks["beat"] = {"ok": True, "mode": "eager"}
    elif client is None:
        checks["celery"] = {"ok": False, "mode": "worker", "error": "no REDIS_URL: workers cannot be reached"}
        checks["beat"] = {"ok": False, "error": "no REDIS_URL: beat cannot be reached"}
    else:
        checks["celery"], checks["beat"] = _heartbeats(client, time.time())
    status = "ok" if all(check["ok"] for check in checks.values()) else "down"
    return {"status": status, **checks}
