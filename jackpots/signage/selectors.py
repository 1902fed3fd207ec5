"""Reads for the signs: the screen, its jackpots in the shape of GET /api/v1/jackpots, what the engine
publishes."""

from __future__ import annotations

from django.utils import timezone

from common.credentials import screen_token_matches
from common.money import cents_eur, mc_eur, mc_to_cents
from floor.models import SignageScreen
from jackpots.models import Hit, Level
from jackpots.selectors import (
    hit_place,
    progressive_links,
    progressive_public,
    progressives_list,
)
from jackpots.signage.currency import ScreenContent, amounts_in, display_rate


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
    amounts in the venue's currency where it is not the pool's (see ``jackpots.signage.currency``)."""
    links = progressive_links(list(content.progressives))
    progressives = progressives_list().filter(id__in=content.progressives).order_by("name", "id")
    now = timezone.now()
    jackpots = []
    for progressive in progressives:
        shown = progressive_public(progressive, link=links[progressive.id])
        if progressive.currency != content.currency:
            rate = display_rate(progressive.currency, content.currency, now)
            if rate is not None:
                shown["rate"] = str(rate)
            for level, level_shown in zip(progressive.levels.all(), shown["levels"], strict=True):
                level_shown.update(
                    amounts_in(
                        content.currency,
                        progressive.currency,
                        rate,
                        amount=mc_to_cents(level.current_mc),
                        reset=mc_to_cents(level.reset_mc),
                    )
                )
        jackpots.append(shown)
    return jackpots


def level_updates(level_ids: list[int]) -> dict[int, dict]:
    """Per progressive: its currency and the current amount and value sequence of each changed level,
    with the amount in whole cents of the pool (``cents``) for screens in another currency."""
    updates: dict[int, dict] = {}
    for pid, currency, level_id, current_mc, seq in (
        Level.objects.filter(id__in=level_ids)
        .order_by("id")
        .values_list("progressive_id", "progressive__currency", "id", "current_mc", "seq")
    ):
        progressive = updates.setdefault(pid, {"pool_currency": currency, "levels": []})
        progressive["levels"].append(
            {"id": level_id, "amount_eur": mc_eur(current_mc), "seq": seq, "cents": mc_to_cents(current_mc)}
        )
    return updates


def hit_message(hit_id: int) -> tuple[int, dict] | None:
    """The progressive a hit belongs to and the message for its signs: the frame, and the amounts in
    cents of the pool's currency for screens in another currency."""
    hit = Hit.objects.filter(id=hit_id).select_related("level__progressive", "machine").first()
    if hit is None:
        return None
    frame = {
        "type": "hit",
        "level": hit.level_id,
        "amount_eur": cents_eur(hit.amount_cents),
        "machine": hit_place(hit),
        "reset_eur": mc_eur(hit.level.reset_mc),
        "seq": hit.level_seq,
    }
    return hit.level.progressive_id, {
        "type": "hit.announced",
        "frame": frame,
        "pool_currency": hit.level.progressive.currency,
        "cents": {"amount": hit.amount_cents, "reset": mc_to_cents(hit.level.reset_mc)},
    }
