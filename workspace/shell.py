"""What every workspace page shows around its content: the venue switcher, the person, the language and the
navigation. The venue chosen stays in the session until another is chosen."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _

from floor.access import VIEW_FLOOR_MAP, VIEW_REPORTS
from floor.models import Venue

_SESSION_VENUE = "workspace_venue"


@dataclass(frozen=True)
class NavItem:
    key: str
    label: str
    url: str


def venue_current(request: HttpRequest) -> Venue | None:
    """The venue named by ``?venue=``, else the one chosen earlier this session, else the first venue."""
    venues = {venue.code: venue for venue in Venue.objects.order_by("code")}
    wanted = request.GET.get("venue") or request.session.get(_SESSION_VENUE)
    venue = venues.get(wanted) if isinstance(wanted, str) else None
    if venue is None and venues:
        venue = next(iter(venues.values()))
    if venue is not None and request.session.get(_SESSION_VENUE) != venue.code:
        request.session[_SESSION_VENUE] = venue.code
    return venue


def _nav(request: HttpRequest, venue: Venue | None) -> list[NavItem]:
    user = request.user
    items = [NavItem("hits", _("Hits"), reverse("workspace:hits"))]
    if user.has_perm(VIEW_FLOOR_MAP) and venue is not None:
        items.append(NavItem("floor", _("Floor"), reverse("workspace:venue", args=[venue.code])))
    items.append(NavItem("progressives", _("Progressives"), reverse("workspace:progressives")))
    items.append(NavItem("signs", _("Signs"), reverse("workspace:signs")))
    if user.has_perm(VIEW_REPORTS):
        items.append(NavItem("reports", _("Reports"), reverse("workspace:reports")))
        items.append(NavItem("dayclose", _("Day close"), reverse("workspace:dayclose")))
    items.append(NavItem("admin", _("Admin"), reverse("admin:index")))
    return items


def page_render(
    request: HttpRequest, template: str, context: dict, *, section: str, status: int = 200
) -> HttpResponse:
    """Renders a workspace page inside the shell; ``context`` may carry the venue it already chose."""
    venue = context.get("venue") or venue_current(request)
    shell = {
        "venue": venue,
        "venues": list(Venue.objects.order_by("code")),
        "nav": _nav(request, venue),
        "section": section,
        "languages": settings.LANGUAGES,
    }
    return render(request, template, {**shell, **context}, status=status)
