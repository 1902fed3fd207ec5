"""Sign preview: every screen of the venue as a small live picture of what it shows."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.clickjacking import xframe_options_sameorigin

from floor.models import SignageScreen
from signage.selectors import screen_content, signage_snapshot
from signage.snapshots import SignageProgressiveSerializer
from signage.views import sign_config, sign_title
from workspace.access import workspace_page
from workspace.shell import venue_current
from workspace.signs.selectors import screens_status

# Seconds between two frames of a preview: live enough to watch amounts climb, cheap for the server.
PREVIEW_REFRESH_SECONDS = 5


@workspace_page("floor.view_signagescreen")
def signs_view(request: HttpRequest) -> HttpResponse:
    venue = venue_current(request)
    context = {
        "title": _("Signs"),
        "venue": venue,
        "screens": screens_status(venue) if venue else [],
    }
    return render(request, "workspace/signs/signs.html", context)


@workspace_page("floor.view_signagescreen")
@xframe_options_sameorigin
def sign_preview_view(request: HttpRequest, screen: str) -> HttpResponse:
    """The sign itself (its template, script, themes and fitting), fed the snapshot the screen would get
    instead of its websocket (which needs the screen's token, which staff never see); it reloads every
    few seconds, and plays a WIN its page sends it (``postMessage``)."""
    found = get_object_or_404(SignageScreen.objects.select_related("venue", "room"), slug=screen)
    with translation.override(found.language):
        snapshot = SignageProgressiveSerializer(signage_snapshot(screen_content(found)), many=True).data
        config = {
            **sign_config(found),
            "preview": snapshot,
            "preview_refresh_seconds": PREVIEW_REFRESH_SECONDS,
        }
        context = {"screen": found, "title": sign_title(found), "venue": found.venue, "config": config}
        return render(request, "signage/screen.html", context)
