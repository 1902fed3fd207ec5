"""Websocket routes, collected from the apps. Origin checks are done by each consumer."""

from __future__ import annotations

from channels.security.websocket import WebsocketDenier
from django.urls import re_path

from gatewaylink.routing import websocket_urlpatterns as gatewaylink_routes
from linkcentral.routing import websocket_urlpatterns as linkcentral_routes
from signage.routing import websocket_urlpatterns as signage_routes
from workspace.routing import websocket_urlpatterns as workspace_routes

websocket_urlpatterns = [
    *gatewaylink_routes,
    *linkcentral_routes,
    *signage_routes,
    *workspace_routes,
    # Any other path (a mistyped screen, junk) is refused at the handshake (403): without this route
    # the router raises and the server answers the handshake with a 500.
    re_path(r"", WebsocketDenier.as_asgi()),
]
