"""Websocket routes of this app, collected by config.routing."""

from __future__ import annotations

websocket_urlpatterns: list = []
