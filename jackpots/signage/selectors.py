"""Reads for the signs: the screen, its jackpots in the shape of GET /api/v1/jackpots, link states."""

from __future__ import annotations

from collections import defaultdict

from floor.credentials import screen_token_matches
from floor.models import SignageScreen
from jackpots.models import Hit, Level
from jackpots.selectors import eur, eur_from_mc, progressive_links, progressive_public, progressives_list


def screen_authenticate(slug: str, token: str) -> SignageScreen | None:
    """The screen ``slug`` if ``token`` is its current token; None for an unknown screen or a bad token."""
    screen = SignageScreen.objects.filter(slug=slug).first()
    if screen is None or not screen_token_matches(screen, token):
        return None
    return screen


def screen_progressive_ids(screen: SignageScreen) -> list[int]:
    return sorted(screen.progressives.values_list("id", flat=True))


def signage_snapshot(progressive_ids: list[int]) -> list[dict]:
    """The screen's progressives as GET /api/v1/jackpots shows them, link state included."""
    links = progressive_links(progressive_ids)
    progressives = progressives_list().filter(id__in=progressive_ids).order_by("name", "id")
    return [progressive_public(progressive, link=links[progressive.id]) for progressive in progressives]


def level_updates(level_ids: list[int]) -> dict[int, list[dict]]:
    """The current amount and value sequence of each level, per progressive, for an update frame."""
    updates: dict[int, list[dict]] = defaultdict(list)
    for pid, level_id, current_mc, seq in (
        Level.objects.filter(id__in=level_ids)
        .order_by("id")
        .values_list("progressive_id", "id", "current_mc", "seq")
    ):
        updates[pid].append({"id": level_id, "amount_eur": eur_from_mc(current_mc), "seq": seq})
    return dict(updates)


def hit_frame(hit_id: int) -> tuple[int, dict] | None:
    """The progressive a hit belongs to and the sign's hit message for it."""
    hit = Hit.objects.filter(id=hit_id).select_related("level", "machine").first()
    if hit is None:
        return None
    return hit.level.progressive_id, {
        "type": "hit",
        "level": hit.level_id,
        "amount_eur": eur(hit.amount_cents),
        "machine": hit.machine.asset_number if hit.machine else None,
        "reset_eur": eur_from_mc(hit.level.reset_mc),
        "seq": hit.level_seq,
    }
