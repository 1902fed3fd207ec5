"""The floor map, the venue overview and a machine's side panel."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.utils.translation import gettext as _

from floor.access import VIEW_FLOOR_MAP, staff_page
from floor.models import Venue
from slots.models import SlotMachine
from workspace.live.floor import room_floor
from workspace.live.selectors import PLAYING_WINDOW, STATE_LABELS, machine_detail, room_get
from workspace.reports.selectors import venue_overview
from workspace.reports.services import machine_hour_stats_refresh_if_stale


@staff_page(VIEW_FLOOR_MAP)
def floor_map_view(request: HttpRequest, venue: str, room: int) -> HttpResponse:
    found = room_get(venue, room)
    if found is None:
        raise Http404(_("No such room."))
    context = {
        "title": _("Floor map: %(room)s") % {"room": found},
        "room": found,
        "venue": found.venue,
        "floor": room_floor(found, timezone.now()),
        "ws_path": f"/ws/floor/{found.venue.code}/{found.number}/",
    }
    return render(request, "workspace/live/map.html", context)


@staff_page(VIEW_FLOOR_MAP)
def floor_alerts_view(request: HttpRequest, venue: str, room: int) -> HttpResponse:
    """The map's side column (counts by state, open alerts), fetched again as the floor changes."""
    found = room_get(venue, room)
    if found is None:
        raise Http404(_("No such room."))
    return render(request, "workspace/live/_alerts.html", {"floor": room_floor(found, timezone.now())})


@staff_page(VIEW_FLOOR_MAP)
def venue_overview_view(request: HttpRequest, venue: str) -> HttpResponse:
    found = get_object_or_404(Venue, code=venue)
    machine_hour_stats_refresh_if_stale()
    rooms = venue_overview(found, timezone.now(), PLAYING_WINDOW)
    context = {"title": str(found), "venue": found, "rooms": rooms}
    return render(request, "workspace/live/overview.html", context)


@staff_page(VIEW_FLOOR_MAP)
def machine_panel_view(request: HttpRequest, asset: str) -> HttpResponse:
    machine = get_object_or_404(SlotMachine.objects.select_related("room__venue", "bank"), asset_number=asset)
    detail = machine_detail(machine, timezone.now())
    context = {"detail": detail, "state_label": STATE_LABELS[detail.state]}
    return render(request, "workspace/live/machine_panel.html", context)
