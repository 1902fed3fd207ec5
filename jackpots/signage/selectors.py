"""Reads for the signs: the screen, its jackpots in the shape of GET /api/v1/jackpots, link states."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from floor.credentials import screen_token_matches
from floor.models import SignageScreen
from jackpots.models import Hit, Level, Progressive, ProgressiveMachine
from jackpots.signage.money import cents_to_eur, mc_to_eur
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


def _last_hits(level_ids: list[int]) -> dict[int, dict]:
    latest = (
        Hit.objects.filter(level_id=OuterRef("pk"))
        .exclude(state=Hit.State.VOIDED)
        .order_by("-at", "-id")
        .values("id")[:1]
    )
    hit_ids = [
        hit_id
        for hit_id in Level.objects.filter(id__in=level_ids)
        .annotate(last_hit_id=Subquery(latest))
        .values_list("last_hit_id", flat=True)
        if hit_id is not None
    ]
    return {
        hit.level_id: {
            "at": hit.at.isoformat(),
            "amount_eur": cents_to_eur(hit.amount_cents),
            "machine": hit.machine.asset_number if hit.machine else None,
        }
        for hit in Hit.objects.filter(id__in=hit_ids).select_related("machine")
    }


def jackpot_list(progressive_ids: list[int] | None = None) -> list[dict]:
    """Progressives with their public level state, as GET /api/v1/jackpots shows them. Never a mystery
    trigger, a reserve or a staged parameter."""
    progressives = Progressive.objects.all()
    if progressive_ids is not None:
        progressives = progressives.filter(id__in=progressive_ids)
    progressives = list(progressives)
    ids = [p.id for p in progressives]
    venues: dict[int, list[str]] = defaultdict(list)
    for pid, code in (
        ProgressiveMachine.objects.filter(progressive_id__in=ids)
        .values_list("progressive_id", "machine__room__venue__code")
        .distinct()
        .order_by("progressive_id", "machine__room__venue__code")
    ):
        venues[pid].append(code)
    levels = list(Level.objects.filter(progressive_id__in=ids).order_by("progressive_id", "position", "id"))
    last_hits = _last_hits([level.id for level in levels])
    levels_by_progressive: dict[int, list[dict]] = defaultdict(list)
    for level in levels:
        levels_by_progressive[level.progressive_id].append(
            {
                "id": level.id,
                "name": level.name,
                "amount_eur": mc_to_eur(level.current_mc),
                "reset_eur": mc_to_eur(level.reset_mc),
                "seq": level.seq,
                "last_hit": last_hits.get(level.id),
            }
        )
    links = progressive_links(ids)
    return [
        {
            "id": p.id,
            "name": p.name,
            "kind": p.kind,
            "currency": p.currency,
            "venues": venues[p.id],
            "link": links[p.id],
            "levels": levels_by_progressive[p.id],
        }
        for p in progressives
    ]


def level_updates(level_ids: list[int]) -> dict[int, list[dict]]:
    """The current amount and value sequence of each level, per progressive, for an update frame."""
    updates: dict[int, list[dict]] = defaultdict(list)
    for pid, level_id, current_mc, seq in (
        Level.objects.filter(id__in=level_ids)
        .order_by("id")
        .values_list("progressive_id", "id", "current_mc", "seq")
    ):
        updates[pid].append({"id": level_id, "amount_eur": mc_to_eur(current_mc), "seq": seq})
    return dict(updates)


def hit_frame(hit_id: int) -> tuple[int, dict] | None:
    """The progressive a hit belongs to and the sign's hit message for it."""
    hit = Hit.objects.filter(id=hit_id).select_related("level", "machine").first()
    if hit is None:
        return None
    return hit.level.progressive_id, {
        "type": "hit",
        "level": hit.level_id,
        "amount_eur": cents_to_eur(hit.amount_cents),
        "machine": hit.machine.asset_number if hit.machine else None,
        "reset_eur": mc_to_eur(hit.level.reset_mc),
        "seq": hit.level_seq,
    }
