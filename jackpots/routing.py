"""Websocket routes of this app, collected by config.routing."""

from __future__ import annotations

from django.urls import path

from jackpots.gateway.consumers import GatewayConsumer
from jackpots.signage.consumers import SignageConsumer

websocket_urlpatterns: list = [
    path("ws/signage/<slug:screen>/", SignageConsumer.as_asgi()),
    path("ws/gateway/", GatewayConsumer.as_asgi()),
]
