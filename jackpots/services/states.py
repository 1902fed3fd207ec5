"""A level's state: suspended (out of play for a while: no contribution, no hit, off the SAS broadcast,
"suspended" on its signs) and resumed. Each change is on record twice, in ONE transaction with it: the
level's change log (``LevelChange``: old and new state, who, why) and the significant-events register.
Retiring a level is its own service (its liability moves away first); here a retired level stays retired.

The change goes through the one level write (``levels_write``): the level is locked, its value sequence
moves on and, after commit, its signs and gateways are told its new state like a new amount.
"""

from __future__ import annotations

import dataclasses

from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.translation import gettext as _

from floor.models import SignificantEvent
from floor.services.significant import significant_event_record
from jackpots.models import Level, LevelChange
from jackpots.selectors import progressive_venue_id
from jackpots.services.errors import EngineError
from jackpots.services.level_write import Locked, Written, levels_write


def level_retired_error(level: Level) -> EngineError:
    return EngineError(
        "level_retired", _("%(level)s is retired: it takes nothing ever again.") % {"level": level}
    )


def level_in_play_check(level: Level) -> None:
    """Raises unless ``level`` (locked) is active: a suspended or retired level is won by no one."""
    if level.state == Level.State.SUSPENDED:
        raise EngineError(
            "level_suspended", _("%(level)s is suspended: it takes no hit until resumed.") % {"level": level}
        )
    if level.state == Level.State.RETIRED:
        raise level_retired_error(level)


def _state_change(level: Level, user: User | None, reason: str, *, to: str, kind: str) -> LevelChange:
    reason = (reason or "").strip()
    if not reason:
        raise EngineError("reason_required", _("Suspending or resuming a level needs a reason."))
    level_id = level.pk
    venue_id = progressive_venue_id(level.progressive_id)

    def step(locked: Locked) -> Written[LevelChange]:
        level = locked.levels[level_id]
        if level.state == Level.State.RETIRED:
            raise level_retired_error(level)
        if level.state == to:
            shown = {"level": level, "state": level.get_state_display().lower()}
            raise EngineError(f"level_already_{to}", _("%(level)s is already %(state)s.") % shown)
        now = timezone.now()
        change = LevelChange.objects.create(
            level=level,
            user=user,
            at=now,
            old={"state": level.state},
            new={"state": to},
            reason=reason,
            state=LevelChange.State.APPLIED,
            applied_at=now,
            applied_cycle=level.cycle,
        )
        significant_event_record(
            kind,
            venue=venue_id,
            at=now,
            subject=f"{level.progressive.name} / {level.name}",
            level_id=level.pk,
            user=user,
            detail=reason,
            reference=f"change {change.pk}",
        )
        level.state = to
        level.save(update_fields=["state"])
        # A new value sequence: signs and gateways take the new state as they take a new amount.
        state = locked.state(level_id)
        return Written({level_id: dataclasses.replace(state, seq=state.seq + 1)}, result=change)

    return levels_write([level_id], step).returned()


def level_suspend(level: Level, user: User | None, reason: str) -> LevelChange:
    """Takes an active level out of play: no contribution, no hit, off the SAS broadcast, "suspended" on
    its signs; games still play and are recorded. Parameter changes apply at once while it is suspended."""
    return _state_change(
        level, user, reason, to=Level.State.SUSPENDED, kind=SignificantEvent.Kind.LEVEL_SUSPENDED
    )


def level_resume(level: Level, user: User | None, reason: str) -> LevelChange:
    """Puts a suspended level back in play; a retired one is refused (``level_retired``)."""
    return _state_change(level, user, reason, to=Level.State.ACTIVE, kind=SignificantEvent.Kind.LEVEL_RESUMED)
