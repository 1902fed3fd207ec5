"""Who is posting: a Bearer key resolved to a machine or a venue's gateway.

Resolving a key is one indexed look-up by digest (floor.credentials). The result is kept in this process
for KEY_CACHE_SECONDS, so a busy machine does not pay a query per request; a revoked key therefore stops
working within KEY_CACHE_SECONDS on every process (immediately on the process that revoked it, through
``principal_cache_clear``).
"""

from __future__ import annotations

import time

from floor.credentials import credential_find, key_digest
from slots.models import GatewayKey, MachineKey
from slots.services.errors import RequestRefused
from slots.services.parsing import Principal

KEY_CACHE_SECONDS = 5.0
_KEY_CACHE_MAX = 10_000
_cache: dict[str, tuple[float, Principal]] = {}


def principal_authenticate(authorization: str | None) -> Principal:
    """The principal of an ``Authorization: Bearer <key>`` header, or RequestRefused (401)."""
    scheme, _, key = (authorization or "").partition(" ")
    key = key.strip()
    if scheme.lower() != "bearer" or not key:
        raise RequestRefused(401, "missing_key")
    digest = key_digest(key)
    now = time.monotonic()
    cached = _cache.get(digest)
    if cached is not None and cached[0] > now:
        return cached[1]
    principal = _principal_find(key)
    if principal is None:
        raise RequestRefused(401, "invalid_key")
    if len(_cache) >= _KEY_CACHE_MAX:
        _cache.clear()
    _cache[digest] = (now + KEY_CACHE_SECONDS, principal)
    return principal


def _principal_find(key: str) -> Principal | None:
    machine_key = credential_find(MachineKey, key)
    if machine_key is not None:
        return Principal(machine_id=machine_key.machine_id)
    gateway_key = credential_find(GatewayKey, key)
    if gateway_key is not None:
        return Principal(venue_id=gateway_key.venue_id)
    return None


def principal_cache_clear() -> None:
    _cache.clear()
