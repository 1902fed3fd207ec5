"""Reads for the signs: the screen, its jackpots in the shape of GET /api/v1/jackpots, link states."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from floor.credentials import screen_token_matches
from floor.models import SignageScreen
from jackpots.models import Hit, Level, ProgressiveMachine
from jackpots.selectors import eur, eur_from_mc, progressive_public, progressives_list
from slots.models import MachineEvent, SlotMachine

LINK_UP = "up"
LINK_DOWN = "down"


def screen_authenticate(slug: str, token: str) -> SignageScreen | None:
    """The screen ``slug`` if ``token`` is its current token; None for an unknown screen or a bad token."""
    screen = SignageScreen.objects.filter(slug=slug).first()
    if screen is None or not screen_token_matches(screen, token):
        return None
    return screen


def screen_progressive_ids(screen: SignageScreen) -> list[int]:
    return sorted(screen.progressives.values_list("id", flat=True))


def progressive_links(progressive_ids: list[int], *, now: datetime | None = None) -> dict[int, str]:
    """Link state per progressive (rule 5, NJ 13:69E-1.39B): down when the engine has left one of its
    pending events unapplied for LINK_STALE_AFTER_SECONDS, or when none of its member machines is online."""
    if not progressive_ids:
        return {}
    cutoff = (now or timezone.now()) - timedelta(seconds=settings.LINK_STALE_AFTER_SECONDS)
    online = set(
        ProgressiveMachine.objects.filter(
            progressive_id__in=progressive_ids,
            enabled=True,
            machine__status=SlotMachine.Status.IN_SERVICE,
        )
        .values_list("progressive_id", flat=True)
        .distinct()
    )
    stale = set(
        MachineEvent.objects.filter(
            pending=True,
            received_at__lt=cutoff,
            machine__memberships__progressive_id__in=progressive_ids,
        )
        .values_list("machine__memberships__progressive_id", flat=True)
        .distinct()
    )
    return {pid: LINK_UP if pid in online and pid not in stale else LINK_DOWN for pid in progressive_ids}


def signage_snapshot(progressive_ids: list[int]) -> list[dict]:
    """The screen's progressives as GET /api/v1/jackpots shows them, with the sign's link state (which
    also goes down when no member machine is online)."""
    links = progressive_links(progressive_ids)
    progressives = progressives_list().filter(id__in=progressive_ids).order_by("name", "id")
    return [
        {**progressive_public(progressive), "link": links[progressive.id]} for progressive in progressives
    ]


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
