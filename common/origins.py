"""Which websocket handshakes come from our own pages (signage screens, the floor map)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from channels.security.websocket import OriginValidator
from django.conf import settings


def allowed_origins() -> list[str]:
    """WEBSOCKET_ALLOWED_ORIGINS, or the ALLOWED_HOSTS when it is empty (channels' origin patterns)."""
    if settings.WEBSOCKET_ALLOWED_ORIGINS:
        return list(settings.WEBSOCKET_ALLOWED_ORIGINS)
    hosts = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not hosts:
        hosts = ["localhost", "127.0.0.1", "[::1]"]
    return hosts


def websocket_origin_allowed(scope: dict[str, Any]) -> bool:
    """A foreign Origin is refused: it is a browser on another site's page (cross-site websocket
    hijacking). A handshake without Origin is not a browser's (browsers always send one), so the Origin
    protects nothing there and the connection's own credential decides (the screen token, the session):
    sign players and integrators that follow docs/api.md send none."""
    origin = None
    for name, value in scope.get("headers", []):
        if name == b"origin":
            origin = value
    if origin is None:
        return True
    try:
        parsed = urlparse(origin.decode("latin1"))
    except ValueError:
        return False
    # channels has no type hints: valid_origin answers a bool.
    return bool(OriginValidator(None, allowed_origins()).valid_origin(parsed))
