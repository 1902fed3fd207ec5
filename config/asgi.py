"""ASGI entry point: Django for HTTP, Channels for websockets (signage screens, floor map)."""

from __future__ import annotations

import os

from config.http import http_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = http_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402 - needs Django set up first
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from common.heap import heap_freeze  # noqa: E402
from common.socket_limits import HandshakeLimit  # noqa: E402
from config.lifespan import Lifespan  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": HandshakeLimit(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
        "lifespan": Lifespan(),
    }
)

# The application is built: what the process holds now lives as long as it does (common.heap).
heap_freeze()
