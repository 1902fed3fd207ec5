"""Sign preview: every screen of the venue as a small live picture of what it shows."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.clickjacking import xframe_options_sameorigin

from floor.models import SignageScreen
from jackpots.signage.selectors import screen_content, signage_snapshot
from workspace.access import workspace_page
from workspace.shell import page_render, venue_current
from workspace.signs.selectors import CONNECTED, NO_TOKEN, screens_status

# Seconds between two frames of a preview: live enough to watch amounts climb, cheap for the server.
PREVIEW_REFRESH_SECONDS = 5


@workspace_page("floor.view_signagescreen")
def signs_view(request: HttpRequest) -> HttpResponse:
    venue = venue_current(request)
    states = {CONNECTED: _("connected"), NO_TOKEN: _("no token issued")}
    context = {
        "title": _("Signs"),
        "venue": venue,
        "screens": screens_status(venue, timezone.now()) if venue else [],
        "states": states,
    }
    return page_render(request, "workspace/signs/signs.html", context, section="signs")


@workspace_page("floor.view_signagescreen")
@xframe_options_sameorigin
def sign_preview_view(request: HttpRequest, screen: str) -> HttpResponse:
    """What the screen shows, drawn by the server and redrawn every few seconds (the sign itself needs
    the screen's token, which staff never see)."""
    found = get_object_or_404(SignageScreen.objects.select_related("venue", "room"), slug=screen)
    context = {
        "screen": found,
        "jackpots": signage_snapshot(screen_content(found)),
        "refresh": PREVIEW_REFRESH_SECONDS,
        "now": timezone.now(),
    }
    return render(request, "workspace/signs/preview.html", context)
