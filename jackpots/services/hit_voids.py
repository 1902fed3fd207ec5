"""Voiding a hit: its level is restored as if the hit had never happened (``hit_void``), with a
compensating ledger row and the void in the significant-events register (rule 8)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from common.money import cents_eur
from floor.models import SignificantEvent
from floor.services.significant import significant_event_record
from jackpots.hooks import any_says, providers
from jackpots.models import Hit, LedgerEntry, Level, LevelChange
from jackpots.services import core
from jackpots.services.errors import EngineError
from jackpots.services.hit_numbers import hit_label
from jackpots.services.hit_payment import hit_lock, hit_venue
from jackpots.services.level_write import Locked, Written, levels_write
from jackpots.services.levels import ledger_entry, level_state, snapshot_params, snapshot_state
from jackpots.services.machine_split import machine_parts_insert, void_parts, wagers_since
from jackpots.services.parameters import parameters_set
from jackpots.services.states import level_retired_error


def _voidable(hit: Hit) -> bool:
    """Unpaid, or paid where a void takes the payment back (tables: paid at the table when its round was
    recorded; a hand declared void at the table takes back what the table paid, rule 8: a malfunction voids
    the payment). A payment the floor made stands."""
    if hit.state in (Hit.State.HIT, Hit.State.VERIFIED):
        return True
    return hit.state == Hit.State.PAID and any_says(providers.hit_payment_voidable, hit)


def hits_took_from_level(hits: Hit | QuerySet[Hit]) -> bool:
    """Whether the hit (or any of the hits) took its award from the level: a fixed prize moves nothing."""
    award = Q(kind__in=[LedgerEntry.Kind.HIT, LedgerEntry.Kind.AWARD])
    if isinstance(hits, Hit):
        return hits.ledger.filter(award).exists()
    return LedgerEntry.objects.filter(award, hit__in=hits).exists()


def _void_record(hit: Hit, user: User, reason: str, now: datetime | None = None) -> Hit:
    hit.state, hit.voided_by, hit.void_reason = Hit.State.VOIDED, user, reason.strip()
    hit.voided_at = now or timezone.now()
    hit.save(update_fields=["state", "voided_by", "voided_at", "void_reason"])
    _void_register(hit)
    return hit


def _void_register(hit: Hit) -> None:
    """The void in the significant-events register, in the void's transaction: the hit's machine (or its
    level, for a table's or an attendant's hit), who voided it and why."""
    significant_event_record(
        SignificantEvent.Kind.VOID,
        venue=hit_venue(hit),
        at=hit.voided_at,
        subject=hit.machine.asset_number if hit.machine is not None else str(hit.level),
        machine_id=hit.machine_id,
        level_id=hit.level_id,
        user=hit.voided_by,
        detail=f"Hit {hit_label(hit)} of EUR {cents_eur(hit.amount_cents)} voided: {hit.void_reason}",
        reference=hit.ref or "",
    )


def _award_row_id(award_rows: list[LedgerEntry]) -> int:
    """The ledger row the hit took its award in (0 for a fixed prize, which moves nothing)."""
    return max((entry.id for entry in award_rows), default=0)


@dataclass(frozen=True)
class _Voided:
    hit: Hit
    entry: LedgerEntry | None = None  # the compensating row (None: a fixed prize, nothing to restore)
    award_row_id: int = 0
    at: datetime | None = None


def hit_void(hit: Hit, user: User, reason: str) -> Hit:
    """Voids an unpaid hit (or a table prize paid at the table) and restores its level as if the hit had
    never happened: the level goes back to its state before the hit, then the eligible wagers since are
    applied again with the carry rule. The compensating ledger row records the difference. Only the level's
    latest hit can be voided. A voided mystery hit gets its trigger back too: the level is again past it, so
    the next eligible wager wins. A table prize is voided through ``tables.services.voids``, which
    calls this and voids the prize's seats and answers too (``providers.hit_voiders``)."""
    if not reason or not reason.strip():
        raise EngineError("reason_required", _("A void needs a reason."))
    with transaction.atomic():
        voided = levels_write([hit.level_id], lambda locked: _void_step(locked, hit, user, reason)).returned()
        if voided.entry is None:
            return voided.hit
        wagers = wagers_since(voided.hit.level_id, voided.award_row_id)
        machine_parts_insert([(voided.entry, void_parts(voided.entry, wagers))])
        return _void_record(voided.hit, user, reason, voided.at)


def _void_check(level: Level, hit: Hit) -> None:
    """Raises unless ``hit`` (locked), which took its award from the level, can be voided now. A
    suspended level takes a void (its money returns, no play moves it); a retired one nothing ever again."""
    if level.state == Level.State.RETIRED:
        raise level_retired_error(level)
    later = Hit.objects.filter(level=level, number__gt=hit.number).exclude(state=Hit.State.VOIDED)
    if hits_took_from_level(later):
        raise EngineError("later_hit", _("A later hit on this level must be voided first."))
    # Each award bumps the level's value sequence, so hits sharing one are winners of the same award.
    shared = Hit.objects.filter(level=level, cycle=hit.cycle, level_seq=hit.level_seq).exclude(pk=hit.pk)
    if shared.exclude(state=Hit.State.VOIDED).exists():
        message = _("This award is shared with other winners; void the round instead.")
        raise EngineError("shared_award", message)


def _void_step(locked: Locked, hit: Hit, user: User, reason: str) -> Written[_Voided]:
    """The level write of a void: the level as before the hit, plus the wagers since."""
    level = locked.levels[hit.level_id]
    hit = hit_lock(hit)
    if not _voidable(hit):
        raise EngineError(
            "hit_not_voidable",
            _("Hit %(hit)s is %(state)s; only an unpaid hit or one paid at the table can be voided.")
            % {"hit": hit_label(hit), "state": hit.get_state_display().lower()},
        )
    if not hits_took_from_level(hit):
        # A fixed prize the house pays: nothing to restore, and no later hit depends on it.
        return Written(result=_Voided(_void_record(hit, user, reason)))
    _void_check(level, hit)
    now = timezone.now()
    current = level_state(level)
    params_before = snapshot_params(hit.before)
    before = snapshot_state(hit.before)
    restored, _ignored = core.contribute(params_before, before, current.wagered_cents - before.wagered_cents)
    restored = dataclasses.replace(restored, seq=current.seq + 1)
    reset_hit = current.cycle != before.cycle
    if reset_hit:
        LevelChange.objects.filter(
            level=level, applied_cycle=current.cycle, state=LevelChange.State.APPLIED
        ).update(state=LevelChange.State.STAGED, applied_at=None, applied_cycle=None)
        parameters_set(level, params_before)
    # What the award's own ledger row moved (nothing for a fixed prize the house pays).
    award_rows = list(hit.ledger.all())
    movement = _void_movement(current, restored, award_rows, carry_restart=reset_hit)
    entry = ledger_entry(
        level,
        LedgerEntry.Kind.VOID,
        movement,
        restored,
        at=now,
        params=params_before,
        hit=hit,
        reference=reason[:80],
    )
    return Written({level.id: restored}, [entry], result=_Voided(hit, entry, _award_row_id(award_rows), now))


def _void_movement(
    current: core.State, restored: core.State, award_rows: list[LedgerEntry], *, carry_restart: bool
) -> core.Movement:
    """The compensating row's movement: from the level as it stands to the level restored."""
    awarded_back = -sum(e.awarded_mc for e in award_rows)
    seeded_back = -sum(e.seeded_mc for e in award_rows)
    current_delta = restored.current_mc - current.current_mc
    reserve_delta = restored.reserve_mc - current.reserve_mc
    overflow_delta = restored.overflow_mc - current.overflow_mc
    return core.Movement(
        current_delta_mc=current_delta,
        reserve_delta_mc=reserve_delta,
        overflow_delta_mc=overflow_delta,
        seeded_mc=seeded_back,
        awarded_mc=awarded_back,
        contributed_mc=current_delta + reserve_delta + overflow_delta - seeded_back + awarded_back,
        carry_restart=carry_restart,
    )
