"""One Redis client per process, and the keys through which the worker and beat say they are alive."""

from __future__ import annotations

import functools

import redis
from django.conf import settings

# Sorted set: each consuming worker's hostname, scored by the time (epoch seconds) of its last heartbeat.
WORKERS_KEY = "progressivo:health:workers"
# The time (epoch seconds) of beat's last tick. docker-compose.yml's healthchecks read both keys too.
BEAT_KEY = "progressivo:health:beat"


def shared_redis() -> redis.Redis | None:
    """One Redis client, and so one connection pool, per process (None on the embedded default). Django's
    cache handler gives every request context a client of its own, which under ASGI meant a new Redis
    connection per request: half of an events request's time, measured with py-spy."""
    if not settings.USING_REDIS:
        return None
    return _client(settings.REDIS_URL)


@functools.cache
def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
