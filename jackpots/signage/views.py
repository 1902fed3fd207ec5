"""The sign's page: static HTML, CSS and JS (no build step); the data comes over the websocket. Its words
and number formats are the screen's language."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.http import require_GET

from floor.models import SignageScreen
from jackpots.signage.selectors import screen_authenticate
from jackpots.tables.rules import DECLARED_HANDS, Hand


def sign_strings() -> dict[str, str]:
    """The sign's words in the active language; ``%(amount)s`` and ``%(names)s`` are filled in by the
    page's script."""
    return {
        "connecting": _("Connecting…"),
        "live": _("Live"),
        "offline": _("Reconnecting…"),
        "refused": _("Screen not authorised"),
        "link_down": _("Link down"),
        "link_down_footer": _("Link down: %(names)s"),
        "must_hit_by": _("Must hit by %(amount)s"),
        "mystery": pgettext("sign level", "Mystery"),
        # A suspended level's amount gives way to this word (a retired level is not shown at all).
        "suspended": pgettext("sign level", "Suspended"),
        # A Caribbean Stud declaration (the ``declaration`` frame): its card says so until it is released.
        "declaration": _("%(hand)s declared at table %(table)s, seat %(seat)s: play suspended"),
        "hands": {hand: str(Hand(hand).label) for hand in DECLARED_HANDS},
    }


def sign_title(screen: SignageScreen) -> str:
    return screen.name or (str(screen.room) if screen.room_id else screen.venue.name)


def sign_config(screen: SignageScreen) -> dict:
    """What the sign's script reads (its ``sign-config``), but the socket: in the screen's language, which
    must be active."""
    return {
        "heartbeat_seconds": float(settings.SIGNAGE_HEARTBEAT_SECONDS),
        "max_updates_per_second": float(settings.SIGNAGE_MAX_UPDATES_PER_SECOND),
        "attract_seconds": settings.SIGNAGE_ATTRACT_SECONDS,
        "locale": screen.language,
        # The clock shows the venue's wall time, not the time zone the display PC was set up in.
        "time_zone": screen.venue.time_zone,
        "strings": sign_strings(),
    }


@require_GET
def signage_screen(request: HttpRequest, screen: str) -> HttpResponse:
    found = screen_authenticate(screen, request.GET.get("token", ""))
    if found is None:
        return render(request, "signage/refused.html", status=401)
    title = sign_title(found)
    with translation.override(found.language):
        config = {
            **sign_config(found),
            "socket_path": f"/ws/signage/{found.slug}/",
            "token": request.GET["token"],
        }
        response = render(
            request,
            "signage/screen.html",
            {"screen": found, "title": title, "venue": found.venue, "config": config},
        )
    # The token is in the URL: keep it out of other sites' Referer headers and out of shared caches.
    response["Referrer-Policy"] = "no-referrer"
    response["Cache-Control"] = "no-store"
    return response
