"""The venue's signs as the preview page shows them: each screen, whether it holds a token, and when it was
last connected (the token's last use, written when the screen opens its socket)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings

from floor.models import SignageScreen, Venue

CONNECTED, SILENT, NO_TOKEN = "connected", "silent", "no_token"


@dataclass(frozen=True)
class ScreenStatus:
    screen: SignageScreen
    state: str
    last_seen: datetime | None


def screens_status(venue: Venue, now: datetime) -> list[ScreenStatus]:
    """A screen seen within three heartbeats counts as connected."""
    recent = now - timedelta(seconds=3 * float(settings.SIGNAGE_HEARTBEAT_SECONDS))
    rows = []
    for screen in SignageScreen.objects.filter(venue=venue).select_related("room").order_by("slug"):
        seen = screen.token_last_used_at
        if not screen.token_digest:
            state = NO_TOKEN
        elif seen is not None and seen >= recent:
            state = CONNECTED
        else:
            state = SILENT
        rows.append(ScreenStatus(screen, state, seen))
    return rows
