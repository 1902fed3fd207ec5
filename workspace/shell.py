"""What every workspace page shows around its content: the venue switcher, the person, the language, the
manual and the navigation. A context processor gives it to every page (lazily: a page that does not draw
the shell, the admin's, pays nothing); the venue chosen stays in the session until another is chosen."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import Resolver404, resolve, reverse
from django.utils.functional import SimpleLazyObject
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _

from floor.access import VIEW_FLOOR_MAP, VIEW_REPORTS
from floor.models import Venue

_SESSION_VENUE = "workspace_venue"
VIEW_PROPOSALS = "jackpots.view_changeproposal"  # the approval queue (maker-checker)
# The nav entry each page belongs to, by URL name.
_SECTIONS = {
    "hits": "hits",
    "hit-action": "hits",
    "progressives": "progressives",
    "level": "progressives",
    "level-propose": "progressives",
    "approvals": "approvals",
    "proposal-decide": "approvals",
    "signs": "signs",
    "dayclose": "dayclose",
    "events": "events",
    "events-day": "events",
    "venue": "floor",
    "map": "floor",
    "machine-panel": "floor",
    "inventory": "admin",
    "declarations": "declarations",
}
# Pages about one venue: switching venue there goes to the other venue's floor.
_VENUE_PAGES = {"venue", "map"}


@dataclass(frozen=True)
class NavItem:
    key: str
    label: str
    url: str


@dataclass(frozen=True)
class Shell:
    venue: Venue | None
    venues: list[Venue]
    nav: list[NavItem]
    section: str
    languages: list[tuple[str, str]]
    manual_url: str


def venue_current(request: HttpRequest) -> Venue | None:
    """The venue of the page's URL, else ``?venue=``, else the one chosen earlier this session, else the
    first venue; remembered for the session."""
    venues = {venue.code: venue for venue in Venue.objects.order_by("code")}
    match = request.resolver_match
    wanted = (match.kwargs.get("venue") if match else None) or request.GET.get("venue")
    wanted = wanted or request.session.get(_SESSION_VENUE)
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
    if user.has_perm(VIEW_PROPOSALS):
        items.append(NavItem("approvals", _("Approvals"), reverse("workspace:approvals")))
    items.append(NavItem("signs", _("Signs"), reverse("workspace:signs")))
    if user.has_perm("tables.view_tabledeclaration"):
        items.append(NavItem("declarations", _("Declarations"), reverse("workspace:declarations")))
    if user.has_perm(VIEW_REPORTS):
        items.append(NavItem("reports", _("Reports"), reverse("workspace:reports")))
        items.append(NavItem("dayclose", _("Day close"), reverse("workspace:dayclose")))
        items.append(NavItem("events", _("Significant events"), reverse("workspace:events")))
    items.append(NavItem("admin", _("Admin"), reverse("admin:index")))
    return items


def _section(request: HttpRequest) -> str:
    name = request.resolver_match.url_name if request.resolver_match else ""
    return "reports" if name.startswith("report") else _SECTIONS.get(name, "")


def _shell(request: HttpRequest) -> Shell:
    venue = venue_current(request)
    return Shell(
        venue=venue,
        venues=list(Venue.objects.order_by("code")),
        nav=_nav(request, venue),
        section=_section(request),
        languages=list(settings.LANGUAGES),
        manual_url=settings.MANUAL_URL,
    )


def shell_context(request: HttpRequest) -> dict:
    """Context processor (settings.TEMPLATES): ``shell`` on every page, worked out only when drawn."""
    return {"shell": SimpleLazyObject(lambda: _shell(request))}


def venue_switch_view(request: HttpRequest) -> HttpResponse:
    """The venue switcher: remembers the venue for the session and goes back to the page, or to the new
    venue's floor from a page about the old one."""
    venue = Venue.objects.filter(code=request.GET.get("venue", "")).first()
    back = request.GET.get("next", "")
    if not url_has_allowed_host_and_scheme(back, {request.get_host()}, require_https=request.is_secure()):
        back = reverse("workspace:hits")
    if venue is None:
        return redirect(back)
    request.session[_SESSION_VENUE] = venue.code
    try:
        match = resolve(back.split("?")[0])
    except Resolver404:
        return redirect("workspace:hits")
    if match.url_name in _VENUE_PAGES:
        return redirect("workspace:venue", venue.code)
    if match.url_name == "events-day":  # the same business day's register, at the other venue
        return redirect("workspace:events-day", venue.code, match.kwargs["day"])
    return redirect(back)
