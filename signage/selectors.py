"""Reads for the signs: the screen, its jackpots in the shape of GET /api/v1/jackpots, what the engine
publishes."""

from __future__ import annotations

from django.conf import settings
from django.utils import timezone

from common.credentials import screen_token_matches
from common.money import cents_eur, mc_eur, mc_to_cents
from floor.models import SignageScreen
from jackpots.hooks import first_answer, levels_shown_elsewhere, providers
from jackpots.models import Hit, Level, Progressive
from jackpots.selectors import (
    hit_place,
    levels_shown,
    progressives_list,
    progressives_public,
)
from signage.currency import ScreenContent, amounts_in, display_rate
from signage.models import ScreenPresence, SignTheme
from signage.rules import progressive_rules_signs
from signage.themes import theme_public


def screen_authenticate(slug: str, token: str) -> SignageScreen | None:
    """The screen ``slug`` if ``token`` is its current token; None for an unknown screen or a bad token."""
    screen = SignageScreen.objects.filter(slug=slug).first()
    if screen is None or not screen_token_matches(screen, token):
        return None
    return screen


def screen_token_digests(screen_ids: list[int]) -> dict[int, str]:
    """The current token digest of each screen ("" once revoked; a deleted screen is missing)."""
    return dict(SignageScreen.objects.filter(id__in=screen_ids).values_list("id", "token_digest"))


def screen_content(screen: SignageScreen) -> ScreenContent:
    """The screen's progressives and the currency its venue shows amounts in."""
    return ScreenContent(
        tuple(sorted(screen.progressives.values_list("id", flat=True))), screen.venue.currency
    )


def signage_snapshot(content: ScreenContent) -> list[dict]:
    """The screen's progressives as GET /api/v1/jackpots shows them, link state included, and the
    amounts in the venue's currency where it is not the pool's (see ``signage.currency``)."""
    progressives = list(progressives_list().filter(id__in=content.progressives).order_by("name", "id"))
    now = timezone.now()
    jackpots = []
    themes = {theme.progressive_id: theme for theme in SignTheme.objects.filter(progressive__in=progressives)}
    for progressive, shown in zip(progressives, progressives_public(progressives), strict=True):
        shown["theme"] = theme_public(themes.get(progressive.id), progressive.name)
        shown["rules"] = progressive_rules_signs(progressive)
        for level, level_shown in zip(levels_shown(progressive), shown["levels"], strict=True):
            level_shown.update(level_teaser(level))
        if progressive.currency != content.currency:
            rate = display_rate(progressive.currency, content.currency, now)
            if rate is not None:
                shown["rate"] = str(rate)
            for level, level_shown in zip(levels_shown(progressive), shown["levels"], strict=True):
                level_shown.update(
                    amounts_in(
                        content.currency,
                        progressive.currency,
                        rate,
                        amount=mc_to_cents(level.current_mc),
                        reset=mc_to_cents(level.reset_mc),
                        **(
                            {"must_hit_by": mc_to_cents(level.limit_mc)}
                            if level_teaser(level)["mystery"]
                            else {}
                        ),
                    )
                )
        jackpots.append(shown)
    return jackpots


def level_teaser(level: Level) -> dict:
    """Whether a level is a mystery (must-hit-by) level and, if so, the amount it must hit by (its limit,
    public; never its secret trigger, rule 9), which a sign shows as a teaser line."""
    if not level.mystery or level.limit_mc is None:
        return {"mystery": False}
    return {"mystery": True, "must_hit_by_eur": mc_eur(level.limit_mc)}


def theme_message(progressive_id: int) -> dict | None:
    """The message telling a progressive's signs its theme, as a sign draws it; None once it is gone."""
    progressive = Progressive.objects.filter(id=progressive_id).first()
    if progressive is None:
        return None
    theme = SignTheme.objects.filter(progressive=progressive).first()
    shown = theme_public(theme, progressive.name)
    return {"type": "theme.changed", "progressive": progressive_id, "theme": shown}


def declaration_frames(progressive_ids: list[int]) -> list[dict]:
    """The frames a sign connecting now gets after its snapshot, from the apps above (tables: the
    ``declaration`` frames of the pending declarations)."""
    return [frame for provide in providers.sign_frames for frame in provide(progressive_ids)]


def rules_message(progressive_id: int) -> dict | None:
    """The message telling a progressive's signs its rules as they stand now (after an applied
    parameter or pay table change); None once it is gone."""
    progressive = Progressive.objects.filter(id=progressive_id).first()
    if progressive is None:
        return None
    return {
        "type": "rules.changed",
        "progressive": progressive_id,
        "rules": progressive_rules_signs(progressive),
    }


def level_updates(level_ids: list[int]) -> dict[int, dict]:
    """Per progressive: its currency and the current amount, value sequence and state of each changed
    level, with the amount in whole cents of the pool (``cents``) for screens in another currency. The
    state travels with every update, so a suspension or a resumption reaches a sign like a new amount."""
    updates: dict[int, dict] = {}
    elsewhere = levels_shown_elsewhere(level_ids)  # a wide-area pool's level: the link's amount
    for pid, currency, level_id, own_mc, own_seq, state in (
        Level.objects.filter(id__in=level_ids)
        .order_by("id")
        .values_list("progressive_id", "progressive__currency", "id", "current_mc", "seq", "state")
    ):
        current_mc, seq = elsewhere.get(level_id, (own_mc, own_seq))
        progressive = updates.setdefault(pid, {"pool_currency": currency, "levels": []})
        progressive["levels"].append(
            {
                "id": level_id,
                "amount_eur": mc_eur(current_mc),
                "seq": seq,
                "state": state,
                "cents": mc_to_cents(current_mc),
            }
        )
    return updates


def hit_message(hit_id: int) -> tuple[int, dict] | None:
    """The progressive a hit belongs to and the message for its signs: the frame, and the amounts in
    cents of the pool's currency for screens in another currency."""
    hit = Hit.objects.filter(id=hit_id).select_related("level__progressive", "machine__room").first()
    if hit is None:
        return None
    frame = {
        "type": "hit",
        "level": hit.level_id,
        "amount_eur": cents_eur(hit.amount_cents),
        "machine": hit_place(hit),
        "place": hit_where(hit),
        "reset_eur": mc_eur(hit.level.reset_mc),
        "seq": hit.level_seq,
    }
    return hit.level.progressive_id, {
        "type": "hit.announced",
        "hit": hit.id,
        "frame": frame,
        "pool_currency": hit.level.progressive.currency,
        "cents": {"amount": hit.amount_cents, "reset": mc_to_cents(hit.level.reset_mc)},
    }


def hit_where(hit: Hit) -> str | None:
    """The room and game a hit was won at, as a WIN names them ("Sala Uno · Grease"); a table prize is
    named by the room and game of the table that won it first (``providers.hit_place``)."""
    if hit.machine_id is not None:
        return f"{hit.machine.room.name} · {hit.machine.game_title}"
    place = first_answer(providers.hit_place, hit)
    return place.where if place is not None else None


SCREEN_LIVE = "live"  # a sign is connected and was sent a frame lately
SCREEN_SILENT = "silent"  # connected by the record, but no frame lately: a server died or hangs
SCREEN_OFFLINE = "offline"  # connected once, no connection open now
SCREEN_NEVER = "never"  # never connected


def presence_stale_seconds() -> float:
    """How old a screen's last frame time may be while it counts as live: the server writes it once per
    link check and sends at least a heartbeat in between, so two checks and a heartbeat of silence."""
    return 2 * float(settings.SIGNAGE_LINK_CHECK_SECONDS) + float(settings.SIGNAGE_HEARTBEAT_SECONDS)


def screens_status(venue_id: int) -> list[dict]:
    """Every screen of the venue, by slug, with its connection state (``SCREEN_*``), open connections
    and last frame time: what the workspace's sign preview shows the floor."""
    now = timezone.now()
    stale = presence_stale_seconds()
    presences = {
        presence.screen_id: presence for presence in ScreenPresence.objects.filter(screen__venue_id=venue_id)
    }
    status = []
    for screen in SignageScreen.objects.filter(venue_id=venue_id).order_by("slug"):
        presence = presences.get(screen.id)
        if presence is None or (presence.connected_at is None and presence.last_frame_at is None):
            state, connections, last_frame_at = SCREEN_NEVER, 0, None
        else:
            connections, last_frame_at = presence.connections, presence.last_frame_at
            recent = last_frame_at is not None and (now - last_frame_at).total_seconds() <= stale
            state = SCREEN_OFFLINE if connections == 0 else SCREEN_LIVE if recent else SCREEN_SILENT
        status.append(
            {
                "id": screen.id,
                "slug": screen.slug,
                "name": screen.name,
                "state": state,
                "connections": connections,
                "last_frame_at": last_frame_at,
            }
        )
    return status
