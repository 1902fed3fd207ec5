"""Django's ASGI handler, with the machines' event posts served as sync requests on a few lasting threads.

Under ASGI, Django runs a request's sync code in a thread-sensitive context of its own, which asgiref backs
with a new thread per request, and every ``MiddlewareMixin`` middleware hops to that thread and back for
its ``process_request`` and again for its ``process_response``: about twenty hops and a thread start and
join per request. At 200 event posts a second per process that was a third of the server's CPU (measured
with py-spy). So an event post goes through Django's sync handler instead (the middleware that bears on
an API answer, EVENT_MIDDLEWARE, and the same view) in one hop, its start and end signals included, on
one of EVENT_THREADS threads that last as long as the process (asgiref's ThreadSensitiveContext with an
executor), the least busy one: while one waits on PostgreSQL, the other can work. Every other path keeps
Django's async handling, its whole middleware and a thread per request, so a long admin report never
holds up a post.

An API request's body is bounded while it arrives (``api_body_receive``). Django's handler reads a whole
body, however large, before any view runs; a flood of 1 MiB bodies from 200 connections held a gigabyte.
Here a body declared over the limit is refused before a byte of it is read, one that arrives in several
parts is read past its first part only once the caller's key is accepted, and no more than the limit is
ever held: the refusals close the connection, so the unread rest is never received either. And what the
process's requests hold together is bounded: a body in parts reserves its share of the process's budget
before its rest is read, and waits for it (``common.request_body.body_budget``).
"""

from __future__ import annotations

import functools
import io
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.conf import settings
from django.core import signals
from django.core.handlers.asgi import ASGIHandler as DjangoASGIHandler
from django.core.handlers.asgi import get_script_prefix
from django.core.handlers.base import BaseHandler
from django.db import close_old_connections, connections
from django.http import HttpResponse, HttpResponseBase
from django.urls import Resolver404, resolve, set_script_prefix

from common.request_body import (
    body_budget,
    body_declared_length,
    body_limit,
    busy_response,
    refusal_response,
)
from slots.services.errors import RequestRefused

Receive = Callable[[], Awaitable[dict]]

# Exact paths (docs/api.md fixes them).
EVENT_PATHS = frozenset({"/api/v1/events"})
# The middleware an event post goes through, in settings.MIDDLEWARE's order: what changes an API answer (the
# HTTPS redirect and the security headers, the Content-Length, X-Frame-Options). The rest serves people and
# pages (sessions, language, CSRF, logins, messages, lockouts, the manual's files, which are async only and
# would make every post go thread -> event loop -> thread). Through all of it a 100-event post cost the
# process 2.47 ms of CPU, through these 2.33 (in process, medians of eight alternating rounds; 3.83 and
# 3.40 while a test suite ran beside it).
EVENT_MIDDLEWARE = (
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
)
EVENT_THREADS = 2
# Paths whose bodies are bounded here: the JSON APIs (every error of theirs is JSON, docs/api.md).
API_PREFIX = "/api/"


@functools.cache
def event_executors() -> tuple[ThreadPoolExecutor, ...]:
    """This process's event threads; each runs one post at a time and keeps its database connection."""
    return tuple(ThreadPoolExecutor(1, thread_name_prefix=f"events-{i}") for i in range(EVENT_THREADS))


class ASGIHandler(DjangoASGIHandler):
    def __init__(self) -> None:
        super().__init__()
        self._event_handler = _sync_handler(EVENT_MIDDLEWARE)
        self._event_respond = sync_to_async(self._event_respond_sync, thread_sensitive=True)
        self._in_flight = [0] * EVENT_THREADS

    async def __call__(self, scope: dict, receive, send) -> None:
        if scope["type"] == "http" and scope.get("path") in EVENT_PATHS:
            index = min(range(EVENT_THREADS), key=self._in_flight.__getitem__)
            self._in_flight[index] += 1
            try:
                async with ThreadSensitiveContext(executor=event_executors()[index]):
                    await self.handle(scope, receive, send)
            finally:
                self._in_flight[index] -= 1
            return
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)  # Django's refusal of anything but HTTP
            return
        async with ThreadSensitiveContext():
            try:
                await self.handle(scope, receive, send)
            finally:
                await _thread_connections_close()

    async def handle(self, scope: dict, receive: Receive, send) -> None:
        if not scope["path"].startswith(API_PREFIX):
            await super().handle(scope, receive, send)
            return
        body, reserved = await self.api_body_receive(scope, receive, send)
        try:
            if body is not None and scope["path"] in EVENT_PATHS:
                await self.send_response(await self._event_respond(scope, body), send)
            elif body is not None:
                replayed = _replayed({"type": "http.request", "body": body, "more_body": False}, receive)
                await super().handle(scope, replayed, send)
        finally:
            # The body is held until the request is answered (the view reads it as it runs).
            if reserved:
                body_budget.release(reserved)

    async def read_body(self, receive: Receive) -> io.BytesIO:
        """A body that came in one message is used as it is, not copied into a spooled temporary file."""
        message = await receive()
        if message["type"] == "http.request" and not message.get("more_body", False):
            return io.BytesIO(message.get("body", b""))
        return await super().read_body(_replayed(message, receive))

    async def api_body_receive(self, scope: dict, receive: Receive, send) -> tuple[bytes | None, int]:
        """The whole body, at most the limit, or None once refused (413, the key's 401, 503 when the
        process's body budget stays full) or abandoned; and the bytes it holds of the budget."""
        limit = body_limit()
        declared = body_declared_length(_header(scope, b"content-length"))
        if declared > limit:
            await self._refuse(send, refusal_response(RequestRefused(413, "body_too_large")))
            return None, 0
        message = await receive()
        parts = [message.get("body", b"")]
        received = len(parts[0])
        reserved = 0
        if message.get("more_body", False) and received <= limit:
            refusal, reserved = await _rest_admit(scope, declared or limit)
            if refusal is not None:
                await self._refuse(send, refusal)
                return None, 0
            try:
                while (
                    message["type"] == "http.request"
                    and message.get("more_body", False)
                    and received <= limit
                ):
                    message = await receive()
                    parts.append(message.get("body", b""))
                    received += len(parts[-1])
            except BaseException:
                body_budget.release(reserved)
                raise
        if message["type"] == "http.request" and received <= limit:
            return b"".join(parts), reserved
        if reserved:
            body_budget.release(reserved)
        if received > limit:
            await self._refuse(send, refusal_response(RequestRefused(413, "body_too_large")))
        return None, 0

    async def _refuse(self, send, response: HttpResponse) -> None:
        # The rest of the body stays unread: the server closes the connection instead of draining it.
        response["Connection"] = "close"
        await self.send_response(response, send)

    def _event_respond_sync(self, scope: dict, body: bytes) -> HttpResponseBase:
        """What Django's handler does for a request in sync code, in one visit to the event thread: the
        request's start signal, the request, the response through the short chain, and the response's
        close (its end signal). Django's handler makes three visits (the start signal, the response, the
        close), each a hop from the loop to the thread and back, and watches the connection for a
        disconnect in a task of its own, which a sync view cannot heed anyway. The response is whole
        (bytes) when it is closed, so closing it before it is sent only tidies the connections sooner."""
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, io.BytesIO(body))
        if request is not None:
            response = self._event_handler.get_response(request)
            response._handler_class = self.__class__
        response.close()
        return response


@sync_to_async(thread_sensitive=True)
def _thread_connections_close() -> None:
    """Run last in a request's own context, so on its thread: closes the connections the request opened
    there. No request uses that thread again, so a persistent connection (CONN_MAX_AGE, without a pool) was
    never reused, only closed when the garbage collector freed the thread's connection objects, which hold
    cycles; with the collector's young passes spaced out (common.heap) a busy server kept dozens of idle
    sessions and PostgreSQL refused more clients. With a pool, Django has handed it back already."""
    connections.close_all()


def _sync_handler(middleware: tuple[str, ...]) -> BaseHandler:
    """Django's sync handler with ``middleware`` for its chain. Django's ``load_middleware`` reads the
    setting, so the setting is that list while it runs (once, as the process's application is made)."""
    handler = BaseHandler()
    configured = settings.MIDDLEWARE
    settings.MIDDLEWARE = list(middleware)
    try:
        handler.load_middleware(is_async=False)
    finally:
        settings.MIDDLEWARE = configured
    return handler


def _replayed(first: dict, receive: Receive) -> Receive:
    """``receive`` with ``first`` handed out before what it receives."""
    pending = [first]

    async def replay() -> dict:
        return pending.pop() if pending else await receive()

    return replay


def _header(scope: dict, name: bytes) -> str | None:
    values = [value.decode("latin1") for key, value in scope["headers"] if key.lower() == name]
    return ",".join(values) if values else None


async def _rest_admit(scope: dict, length: int) -> tuple[HttpResponse | None, int]:
    """Whether the rest of a body may be read: the key's refusal if it is refused, then the process's
    budget reserved for ``length`` bytes (503 when it stays full); the bytes reserved."""
    refusal = await _key_refusal(scope)
    if refusal is not None:
        return refusal, 0
    reserved = await body_budget.reserve(length, float(settings.API_BODY_WAIT_SECONDS))
    if reserved is None:
        return busy_response(), 0
    return None, reserved


async def _key_refusal(scope: dict) -> HttpResponse | None:
    """The answer of the path's view to the request's key, if it refuses it: a view that takes a key
    says so with ``body_key_refusal(authorization)``. Runs as the view would, in the request's thread,
    and tidies the database connections after it as a request does."""
    try:
        view_class = getattr(resolve(scope["path"]).func, "view_class", None)
    except Resolver404:
        return None
    check = getattr(view_class, "body_key_refusal", None)
    if check is None:
        return None

    def checked() -> HttpResponse | None:
        try:
            return check(_header(scope, b"authorization"))
        finally:
            close_old_connections()

    return await sync_to_async(checked, thread_sensitive=True)()


def http_application() -> ASGIHandler:
    """What ``django.core.asgi.get_asgi_application`` returns, with this handler."""
    import django

    django.setup(set_prefix=False)
    return ASGIHandler()
