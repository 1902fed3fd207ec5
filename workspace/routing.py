"""Websocket routes of this app, collected by config.routing."""

from __future__ import annotations

from django.urls import re_path

from workspace.consumers import FloorMapConsumer

websocket_urlpatterns: list = [
    # ASCII digits, no longer than a room number (a small integer) and a venue code: \d took "٣" and
    # 5,000 digits, whose int() raised at the handshake (a 500). Another form is refused there (403).
    re_path(r"^ws/floor/(?P<venue>[A-Za-z0-9]{1,8})/(?P<room>[0-9]{1,5})/$", FloorMapConsumer.as_asgi()),
]
