"""Limits on websockets, shared by every server process through the cache (Redis in production):
one live connection per gateway key, and a bounded number of handshakes per client address per second."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import cache

# The cache's async methods run in the one thread that database_sync_to_async also uses: under a flood
# each handshake waited behind every other's database work. These run in the shared pool instead (the
# cache's clients are thread-safe).
_add = sync_to_async(cache.add, thread_sensitive=False)
_get = sync_to_async(cache.get, thread_sensitive=False)
_touch = sync_to_async(cache.touch, thread_sensitive=False)
_delete = sync_to_async(cache.delete, thread_sensitive=False)
_incr = sync_to_async(cache.incr, thread_sensitive=False)


def _name(kind: str, secret: str) -> str:
    # A digest: the cache never holds a key itself.
    return f"socket:{kind}:{hashlib.sha256(secret.encode()).hexdigest()[:32]}"


async def socket_claim(kind: str, secret: str, owner: str, seconds: float) -> bool:
    """Claim the one live connection of ``secret``; False while another owner holds it (the claim lapses
    ``seconds`` after its last renewal, so a process that died frees it)."""
    return await _add(_name(kind, secret), owner, timeout=seconds)


async def socket_claimed(kind: str, secret: str) -> bool:
    """Whether a live connection holds ``secret``'s claim (read before the key is looked up, so a flood
    with a claimed key costs no database work)."""
    return await _get(_name(kind, secret)) is not None


async def socket_claim_renew(kind: str, secret: str, owner: str, seconds: float) -> None:
    name = _name(kind, secret)
    if await _get(name) == owner:
        await _touch(name, timeout=seconds)


async def socket_claim_release(kind: str, secret: str, owner: str) -> None:
    name = _name(kind, secret)
    if await _get(name) == owner:
        await _delete(name)


async def socket_slot_claim(kind: str, secret: str, owner: str, slots: int, seconds: float) -> int | None:
    """Claims one of ``slots`` live connections of ``secret`` (each a claim as above); the slot's number,
    or None when every slot is held."""
    for slot in range(slots):
        if await socket_claim(f"{kind}{slot}", secret, owner, seconds):
            return slot
    return None


async def handshake_allowed(address: str) -> bool:
    """At most WEBSOCKET_HANDSHAKES_PER_SECOND handshakes from one client address in one second."""
    name = f"socket:handshakes:{address}:{int(time.time())}"
    if await _add(name, 1, timeout=2):
        return True
    try:
        count = await _incr(name)
    except ValueError:  # expired between the two calls: a new second
        return True
    return count <= settings.WEBSOCKET_HANDSHAKES_PER_SECOND


# ASGI's three callables, as channels passes them: plain dicts for the scope and the messages.
Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
AsgiApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class HandshakeLimit:
    """ASGI middleware before the websocket router: a handshake past the address's limit is refused (the
    server answers it with 403) before any consumer, database or channel layer work."""

    def __init__(self, inner: AsgiApp) -> None:
        self.inner = inner

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client") or ("", 0)
        if scope["type"] == "websocket" and not await handshake_allowed(client[0]):
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008})
            return None
        return await self.inner(scope, receive, send)
