"""Django's ASGI handler, with the machines' event posts served as sync requests on a few lasting threads.

Under ASGI, Django runs a request's sync code in a thread-sensitive context of its own, which asgiref backs
with a new thread per request, and every ``MiddlewareMixin`` middleware hops to that thread and back for
its ``process_request`` and again for its ``process_response``: about twenty hops and a thread start and
join per request. At 200 event posts a second per process that was a third of the server's CPU (measured
with py-spy). So an event post goes through Django's sync handler instead (the same middleware, the same
view) in one hop, on one of EVENT_THREADS threads that last as long as the process (asgiref's
ThreadSensitiveContext with an executor), the least busy one: while one waits on PostgreSQL, the other
can work. Every other path keeps Django's async handling and a thread per request, so a long admin report
never holds up a post.
"""

from __future__ import annotations

import functools
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.handlers.asgi import ASGIHandler as DjangoASGIHandler
from django.core.handlers.asgi import ASGIRequest
from django.core.handlers.base import BaseHandler
from django.http import HttpResponseBase

# Exact paths (API.md fixes them).
EVENT_PATHS = frozenset({"/api/v1/events"})
EVENT_THREADS = 2


@functools.cache
def event_executors() -> tuple[ThreadPoolExecutor, ...]:
    """This process's event threads; each runs one post at a time and keeps its database connection."""
    return tuple(ThreadPoolExecutor(1, thread_name_prefix=f"events-{i}") for i in range(EVENT_THREADS))


class ASGIHandler(DjangoASGIHandler):
    def __init__(self) -> None:
        super().__init__()
        sync_handler = BaseHandler()
        sync_handler.load_middleware(is_async=False)
        self._sync_get_response = sync_to_async(sync_handler.get_response, thread_sensitive=True)
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
        await super().__call__(scope, receive, send)

    async def run_get_response(self, request: ASGIRequest) -> HttpResponseBase:
        if request.path in EVENT_PATHS:
            response = await self._sync_get_response(request)
            response._handler_class = self.__class__
            return response
        return await super().run_get_response(request)


def http_application() -> ASGIHandler:
    """What ``django.core.asgi.get_asgi_application`` returns, with this handler."""
    import django

    django.setup(set_prefix=False)
    return ASGIHandler()
