"""Websocket routes of the link, collected by config.routing."""

from __future__ import annotations

from django.urls import path

from linkcentral.consumers import LinkConsumer

websocket_urlpatterns: list[object] = [
    path("ws/link/", LinkConsumer.as_asgi()),
]
