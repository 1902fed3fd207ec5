"""Websocket routes, collected from the apps. Origin checks are done by each consumer."""

from __future__ import annotations

from floor.routing import websocket_urlpatterns as floor_routes
from jackpots.routing import websocket_urlpatterns as jackpots_routes

websocket_urlpatterns = [*jackpots_routes, *floor_routes]
