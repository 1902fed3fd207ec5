"""The sign's page: static HTML, CSS and JS (no build step); the data comes over the websocket. Its words
and number formats are the screen's language."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.http import require_GET

from floor.models import SignageScreen
from jackpots.hooks import providers
from jackpots.models import Progressive
from signage.models import SignTheme
from signage.rules import RuleLine, progressive_rules
from signage.selectors import screen_authenticate
from signage.themes import theme_public

# How long a sign shows each line of the rules before the next.
RULES_LINE_SECONDS = 6


def sign_strings() -> dict[str, object]:
    """The sign's words in the active language; ``%(amount)s`` and ``%(names)s`` are filled in by the
    page's script."""
    strings: dict[str, object] = {
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
    }
    # The apps above add theirs (tables: "hands", the names of the declared hands).
    for provide in providers.sign_strings:
        strings.update(provide())
    return strings


def sign_title(screen: SignageScreen) -> str:
    return screen.name or (str(screen.room) if screen.room_id else screen.venue.name)


def sign_config(screen: SignageScreen) -> dict:
    """What the sign's script reads (its ``sign-config``), but the socket: in the screen's language, which
    must be active."""
    return {
        "heartbeat_seconds": float(settings.SIGNAGE_HEARTBEAT_SECONDS),
        "max_updates_per_second": float(settings.SIGNAGE_MAX_UPDATES_PER_SECOND),
        "attract_seconds": settings.SIGNAGE_ATTRACT_SECONDS,
        "rules_seconds": RULES_LINE_SECONDS,
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


def rules_language(request: HttpRequest) -> str:
    """``?lang=it|en`` first; else the language the request asks for (the browser's, a chosen one, a
    staff member's profile: what the middleware activated); a request that asks for none reads Italian,
    the casino's."""
    asked = request.GET.get("lang", "")
    languages = [code for code, _name in settings.LANGUAGES]
    if asked in languages:
        return asked
    user = getattr(request, "user", None)
    chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) or (
        user is not None and user.is_authenticated
    )
    if request.headers.get("Accept-Language") or chosen:
        active = getattr(request, "LANGUAGE_CODE", "")
        return active if active in languages else "it"
    return "it"


def rules_sections(lines: list[RuleLine]) -> dict:
    """The lines as the page lists them: about the whole progressive, per level, the pay table."""
    levels: dict[str, list[RuleLine]] = {}
    for line in lines:
        if line.level:
            levels.setdefault(line.level, []).append(line)
    return {
        "general": [line for line in lines if not line.level and line.key != "pay_line"],
        "levels": list(levels.items()),
        "pay_lines": [line for line in lines if line.key == "pay_line"],
    }


@require_GET
def progressive_rules_view(request: HttpRequest, progressive: int) -> HttpResponse:
    """The public rules page of one progressive (no login): what its signs say, in full, in the
    request's language. Nothing secret is read (``signage.rules``)."""
    found = Progressive.objects.filter(id=progressive).first()
    if found is None:
        raise Http404("No such progressive.")
    language = rules_language(request)
    theme = theme_public(SignTheme.objects.filter(progressive=found).first(), found.name)
    with translation.override(language):
        context = {
            "language": language,
            "title": theme["title"],
            "theme": theme,
            # The card's colours as the sign's custom properties (validated #rrggbb values).
            "theme_style": "".join(
                f"--{name.replace('_', '-')}: {value};" for name, value in theme["colors"].items()
            ),
            "languages": (("it", "Italiano"), ("en", "English")),  # each in its own language
            **rules_sections(progressive_rules(found, language)),
        }
        response = render(request, "signage/rules.html", context)
    response["Content-Language"] = language
    return response
