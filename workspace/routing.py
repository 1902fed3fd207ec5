"""Websocket routes of this app, collected by config.routing."""

from __future__ import annotations

from django.urls import re_path

from workspace.consumers import FloorMapConsumer

websocket_urlpatterns: list = [
    re_path(r"^ws/floor/(?P<venue>[A-Za-z0-9]+)/(?P<room>\d+)/$", FloorMapConsumer.as_asgi()),
]
