"""Writes for the signs: a progressive's theme (pushed to its connected signs after commit) and the
screens' presence (what the sign servers report of their connections)."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import Case, DateTimeField, F, Value, When
from django.db.models.functions import Greatest
from django.utils import timezone

from signage import publish
from signage.models import ScreenPresence, SignTheme


def sign_theme_save(theme: SignTheme) -> SignTheme:
    """Saves the theme; once committed, the progressive's connected signs redraw its card (no reload)."""
    theme.full_clean()
    with transaction.atomic():
        theme.save()
        progressive_id = theme.progressive_id
        transaction.on_commit(lambda: publish.theme_changed(progressive_id))
    return theme


def sign_theme_delete(theme: SignTheme) -> None:
    """Back to the classic preset under the progressive's name, on the connected signs too."""
    with transaction.atomic():
        progressive_id = theme.progressive_id
        theme.delete()
        transaction.on_commit(lambda: publish.theme_changed(progressive_id))


def screen_presence_connected(screen_id: int) -> None:
    now = timezone.now()
    presence, created = ScreenPresence.objects.get_or_create(
        screen_id=screen_id, defaults={"connections": 1, "connected_at": now, "last_frame_at": now}
    )
    if not created:
        # One row per screen, several signs may connect at once: count in the database, not here.
        ScreenPresence.objects.filter(id=presence.id).update(
            connections=F("connections") + 1, connected_at=now, last_frame_at=now
        )


def screen_presence_disconnected(screen_id: int, last_frame_at: datetime | None) -> None:
    now = timezone.now()
    changes: dict = {"connections": Greatest(F("connections") - 1, 0), "disconnected_at": now}
    if last_frame_at is not None:
        changes["last_frame_at"] = last_frame_at
    ScreenPresence.objects.filter(screen_id=screen_id).update(**changes)


def screen_presence_frames(last_frames: dict[int, datetime]) -> None:
    """The last frame time of each screen this server process has signs of, in one statement (once per
    link check): a commit per screen made a process's check cost a WAL flush per screen, in the thread
    its signs' connections and snapshots also wait for."""
    if not last_frames:
        return
    at = Case(
        *(When(screen_id=screen_id, then=Value(when)) for screen_id, when in last_frames.items()),
        output_field=DateTimeField(),
    )
    ScreenPresence.objects.filter(screen_id__in=list(last_frames)).update(last_frame_at=at)
