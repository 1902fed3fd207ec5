"""Reads of the floor app."""

from __future__ import annotations

from django.conf import settings
from django.db import connection


def _database_ok() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        return {"ok": False, "error": str(exc)[:200]}
    return {"ok": True, "engine": connection.vendor}


def _redis_ok() -> dict:
    if not settings.USING_REDIS:
        return {"ok": True, "configured": False}
    import redis

    try:
        client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
        client.ping()
    except Exception as exc:
        return {"ok": False, "configured": True, "error": str(exc)[:200]}
    return {"ok": True, "configured": True}


def _celery_ok() -> dict:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"ok": True, "mode": "eager"}
    from config.celery import app

    try:
        replies = app.control.ping(timeout=1.0)
    except Exception as exc:
        return {"ok": False, "mode": "worker", "error": str(exc)[:200]}
    return {"ok": bool(replies), "mode": "worker", "workers": len(replies)}


def health_report() -> dict:
    checks = {"database": _database_ok(), "redis": _redis_ok(), "celery": _celery_ok()}
    status = "ok" if all(check["ok"] for check in checks.values()) else "down"
    return {"status": status, **checks}
