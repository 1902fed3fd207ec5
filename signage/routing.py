"""Websocket routes of this app, collected by config.routing."""

from __future__ import annotations

from django.urls import path

from signage.consumers import SignageConsumer

websocket_urlpatterns: list = [
    path("ws/signage/<slug:screen>/", SignageConsumer.as_asgi()),
]
