"""Websocket routes, collected from the apps. Origin checks are done by each consumer."""

from __future__ import annotations

from channels.security.websocket import WebsocketDenier
from django.urls import re_path

from jackpots.routing import websocket_urlpatterns as jackpots_routes
from workspace.routing import websocket_urlpatterns as workspace_routes

websocket_urlpatterns = [
    *jackpots_routes,
    *workspace_routes,
    # Any other path (a mistyped screen, junk) is refused at the handshake (403): without this route
    # the router raises and the server answers the handshake with a 500.
    re_path(r"", WebsocketDenier.as_asgi()),
]
