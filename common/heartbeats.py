"""Heartbeats of the Celery worker and beat, kept in the shared Redis and read by /healthz."""

from __future__ import annotations

import time

from common.shared_redis import BEAT_KEY, WORKERS_KEY, shared_redis


def worker_heartbeat_record(hostname: str) -> None:
    """A consuming worker says it is alive (every WORKER_HEARTBEAT_SECONDS, from its own timer)."""
    client = shared_redis()
    if client is not None:
        client.zadd(WORKERS_KEY, {hostname: time.time()})


def worker_heartbeat_clear(hostname: str) -> None:
    """A worker that stops consuming (shut down, or its broker connection lost) is no longer counted."""
    client = shared_redis()
    if client is not None:
        client.zrem(WORKERS_KEY, hostname)


def beat_heartbeat_record() -> None:
    """Beat ticked (it sends the engine's safety-net run every second)."""
    client = shared_redis()
    if client is not None:
        client.set(BEAT_KEY, time.time())
