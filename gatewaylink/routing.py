"""Websocket routes of this app, collected by config.routing."""

from __future__ import annotations

from django.urls import path

from gatewaylink.consumers import GatewayConsumer

websocket_urlpatterns: list = [
    path("ws/gateway/", GatewayConsumer.as_asgi()),
]
