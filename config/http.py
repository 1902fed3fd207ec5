"""Django's ASGI handler, with the machines' event posts kept off a new thread per request.

For every request, Django's ASGI handler opens a thread-sensitive context, which asgiref backs with a new
thread that runs the request's sync code (the view, the request signals' receivers, ``response.close``)
and is joined at the end. At 200 event posts a second per process, starting and joining those threads
was a sixth of the server's CPU (measured with py-spy). The event posts' sync code is short and waits on
nothing but PostgreSQL, so it runs in the process's one shared sync thread instead (asgiref's default
outside such a context, where the websocket consumers' database calls already run), one post after
another. Every other path keeps a thread per request, so a long admin report never holds up a post.
"""

from __future__ import annotations

from django.core.handlers.asgi import ASGIHandler as DjangoASGIHandler

# Exact paths (API.md fixes them).
SHARED_THREAD_PATHS = frozenset({"/api/v1/events"})


class ASGIHandler(DjangoASGIHandler):
    async def __call__(self, scope: dict, receive, send) -> None:
        if scope["type"] == "http" and scope.get("path") in SHARED_THREAD_PATHS:
            await self.handle(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


def http_application() -> ASGIHandler:
    """What ``django.core.asgi.get_asgi_application`` returns, with this handler."""
    import django

    django.setup(set_prefix=False)
    return ASGIHandler()
