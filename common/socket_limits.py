"""Limits on websockets, shared by every server process through the cache (Redis in production):
one live connection per gateway key, a few per screen token, and a bounded number of handshakes per client
address per second.

A live connection's claim lapses unless renewed, so a process that died frees its connections' claims.
The cache is synchronous, reached from the event loop through threads that take the interpreter from the
loop writing the signs' frames, so a connection's claims cost a fixed number of calls: the claims of one
process's connections are renewed together (``socket_claim_keep``), one call for all, where each sign
renewed its own every heartbeat; and a slot is claimed with one read and one claim, where slots were
tried one by one (docs/harden.md, "Limits on websockets", has the figures)."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import cache

from common.loops import loop_local

logger = logging.getLogger(__name__)
# A kept claim is renewed this many times within its lease: it survives two renewals that come late.
RENEWALS_PER_LEASE = 3

# The cache's async methods run in the one thread that database_sync_to_async also uses: under a flood
# each handshake waited behind every other's database work. These run in the shared pool instead (the
# cache's clients are thread-safe).
_add = sync_to_async(cache.add, thread_sensitive=False)
_get = sync_to_async(cache.get, thread_sensitive=False)
_get_many = sync_to_async(cache.get_many, thread_sensitive=False)
_delete = sync_to_async(cache.delete, thread_sensitive=False)
_incr = sync_to_async(cache.incr, thread_sensitive=False)


def _digest(secret: str) -> str:
    # A digest: the cache never holds a key itself.
    return hashlib.sha256(secret.encode()).hexdigest()[:32]


def _key(kind: str, digest: str) -> str:
    return f"socket:{kind}:{digest}"


def _name(kind: str, secret: str) -> str:
    return _key(kind, _digest(secret))


async def socket_claim(kind: str, secret: str, owner: str, seconds: float) -> bool:
    """Claim the one live connection of ``secret``; False while another owner holds it (the claim lapses
    ``seconds`` after its last renewal, so a process that died frees it)."""
    return await _add(_name(kind, secret), owner, timeout=seconds)


async def socket_claimed(kind: str, secret: str) -> bool:
    """Whether a live connection holds ``secret``'s claim (read before the key is looked up, so a flood
    with a claimed key costs no database work)."""
    return await _get(_name(kind, secret)) is not None


def claims_renew(claims: dict[str, tuple[str, float]]) -> int:
    """Renews, for its lease, each claim (cache name: owner, lease) its owner still holds; how many."""
    held = cache.get_many(list(claims))
    owned = [(name, seconds) for name, (owner, seconds) in claims.items() if held.get(name) == owner]
    for name, seconds in owned:
        cache.touch(name, timeout=seconds)
    return len(owned)


_claims_renew = sync_to_async(claims_renew, thread_sensitive=False)


class ClaimKeeper:
    """The claims of one event loop's live connections, renewed together every lease / RENEWALS_PER_LEASE
    of the shortest lease among them, by one task that ends when the last claim is let go."""

    def __init__(self) -> None:
        self.claims: dict[str, tuple[str, float]] = {}
        self.interval = float("inf")
        self.task: asyncio.Task[None] | None = None

    def keep(self, name: str, owner: str, seconds: float) -> None:
        self.claims[name] = (owner, seconds)
        interval = seconds / RENEWALS_PER_LEASE
        if self.task is None or self.task.done() or interval < self.interval:
            # A shorter lease than the task sleeps for: it starts again with the shorter interval.
            self._stop()
            self.interval = interval
            self.task = asyncio.get_running_loop().create_task(self._run())

    def let_go(self, name: str, owner: str) -> None:
        if self.claims.get(name, ("",))[0] == owner:
            del self.claims[name]
        if not self.claims:
            self._stop()

    def _stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
        self.task, self.interval = None, float("inf")

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await _claims_renew(dict(self.claims))
            except Exception as exc:  # Redis down: the claims lapse, and are renewed once it is back
                logger.warning("The connections' claims could not be renewed (%s)", exc)


_keepers: dict[asyncio.AbstractEventLoop, ClaimKeeper] = {}


def socket_claim_keep(kind: str, secret: str, owner: str, seconds: float) -> None:
    """Keeps ``owner``'s claim of ``secret`` (made with ``socket_claim``) renewed for ``seconds`` at a
    time until it is released, with the other claims of this process."""
    loop_local(_keepers, ClaimKeeper).keep(_name(kind, secret), owner, seconds)


async def socket_claim_release(kind: str, secret: str, owner: str) -> None:
    name = _name(kind, secret)
    loop_local(_keepers, ClaimKeeper).let_go(name, owner)
    if await _get(name) == owner:
        await _delete(name)


async def socket_slot_claim(kind: str, secret: str, owner: str, slots: int, seconds: float) -> int | None:
    """Claims one of ``slots`` live connections of ``secret`` (each a claim as above); the slot's number,
    or None when every slot is held. Reads which are held in one call and claims the first free one: tried
    one by one, the k-th connection of a screen cost k calls (55,000 for 1,000 signs on nine screens)."""
    digest = _digest(secret)
    names = [_key(f"{kind}{slot}", digest) for slot in range(slots)]
    held = await _get_many(names)
    for slot, name in enumerate(names):
        # A slot taken since the read is refused by the claim itself: the next free one is tried.
        if name not in held and await _add(name, owner, timeout=seconds):
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
