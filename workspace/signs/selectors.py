"""The venue's signs as the preview page shows them: each screen with what its connection says.

The state comes from the signs' own presence records (signage: written when a sign connects or
disconnects and at each link check), so a sign whose socket is open but that has been sent nothing lately
shows as silent, and a dead sign shows before a player notices. A screen without a token cannot connect.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from floor.models import SignageScreen, Venue
from signage.selectors import SCREEN_LIVE, SCREEN_NEVER, SCREEN_OFFLINE, SCREEN_SILENT
from signage.selectors import screens_status as presences

NO_TOKEN = "no_token"
STATES = (SCREEN_LIVE, SCREEN_SILENT, SCREEN_OFFLINE, SCREEN_NEVER, NO_TOKEN)


@dataclass(frozen=True)
class ScreenStatus:
    screen: SignageScreen
    state: str
    connections: int
    last_frame_at: datetime | None


def screens_status(venue: Venue) -> list[ScreenStatus]:
    found = {row["id"]: row for row in presences(venue.id)}
    rows = []
    for screen in SignageScreen.objects.filter(venue=venue).select_related("room").order_by("slug"):
        presence = found[screen.id]
        state = NO_TOKEN if not screen.token_digest else presence["state"]
        rows.append(ScreenStatus(screen, state, presence["connections"], presence["last_frame_at"]))
    return rows
