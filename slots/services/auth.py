"""Who is posting: a Bearer key resolved to a machine or a venue's gateway.

Resolving a key is one indexed look-up by digest (common.credentials). The result is kept in this process
for up to KEY_CACHE_SECONDS, so a busy machine does not pay a query per request, but every use of a cached
key first reads the revocation generation, a counter in Redis (the local cache on the embedded default)
that every revocation bumps after its commit: a cached key whose generation is no longer current is looked
up again, so a revoked key stops working at once in every process for the price of one cache GET.
"""

from __future__ import annotations

import logging
import time

from django.core.cache import cache
from django.db import transaction

from common.credentials import credential_find, key_digest
from common.shared_redis import shared_redis
from slots.models import GatewayKey, MachineKey
from slots.services.errors import RequestRefused
from slots.services.parsing import Principal

logger = logging.getLogger(__name__)

# Revocations reach every process through the generation, so the expiry only bounds how long a key's
# row is trusted without a re-read; a minute keeps look-ups rare on a floor of machine keys.
KEY_CACHE_SECONDS = 60.0
REVOCATION_GENERATION_KEY = "slots:keys:revocation-generation"
_KEY_CACHE_MAX = 10_000
# digest -> (expires at, principal, revocation generation read before the look-up)
_cache: dict[str, tuple[float, Principal, int | None]] = {}


def principal_authenticate(authorization: str | None) -> Principal:
    """The principal of an ``Authorization: Bearer <key>`` header, or RequestRefused (401)."""
    scheme, _, key = (authorization or "").partition(" ")
    key = key.strip()
    if scheme.lower() != "bearer" or not key:
        raise RequestRefused(401, "missing_key")
    digest = key_digest(key)
    now = time.monotonic()
    # Read before the look-up: a revocation committed after it bumps the generation past this one.
    generation = _revocation_generation()
    cached = _cache.get(digest)
    if cached is not None and cached[0] > now and generation is not None and cached[2] == generation:
        return cached[1]
    principal = _principal_find(key)
    if principal is None:
        _cache.pop(digest, None)
        raise RequestRefused(401, "invalid_key")
    if len(_cache) >= _KEY_CACHE_MAX:
        _cache.clear()
    _cache[digest] = (now + KEY_CACHE_SECONDS, principal, generation)
    return principal


def _principal_find(key: str) -> Principal | None:
    machine_key = credential_find(MachineKey, key)
    if machine_key is not None:
        return Principal(machine_id=machine_key.machine_id)
    gateway_key = credential_find(GatewayKey, key)
    if gateway_key is not None:
        return Principal(venue_id=gateway_key.venue_id)
    return None


def _revocation_generation() -> int | None:
    """The shared generation, 0 before the first revocation; None when it cannot be read, which sends
    every request to the database rather than trust a key that may have been revoked."""
    try:
        return _generation_read()
    except Exception:
        logger.warning("Key revocation generation unreadable; looking keys up in the database")
        return None


def _generation_read() -> int:
    client = shared_redis()
    if client is None:  # the embedded default: one process, its local cache is shared by its threads
        return int(cache.get(REVOCATION_GENERATION_KEY, 0))
    return int(client.get(REVOCATION_GENERATION_KEY) or 0)


def _generation_bump() -> None:
    client = shared_redis()
    if client is None:
        cache.add(REVOCATION_GENERATION_KEY, 0, timeout=None)
        cache.incr(REVOCATION_GENERATION_KEY)
    else:
        client.incr(REVOCATION_GENERATION_KEY)


def keys_revocation_publish() -> None:
    """Tells every process that a key was revoked or deleted: after the commit (before it, another
    process could still read the key as active and cache it under the new generation), this process's
    cache is cleared and the shared generation bumped."""

    def publish() -> None:
        _cache.clear()
        try:
            _generation_bump()
        except Exception:
            logger.exception("Key revocation generation not bumped; other processes may trust a cached key")

    _cache.clear()
    transaction.on_commit(publish)


def principal_cache_clear() -> None:
    _cache.clear()
