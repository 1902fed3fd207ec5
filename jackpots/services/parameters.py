"""Parameter changes: staged on a live level until its next reset, applied at once on a suspended one
(NZ Gazette 2004 §1.28.3, NY 5321.18); every change is logged with who, when, old, new, why
(NJ 13:69E-1.39C)."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from decimal import Decimal, InvalidOperation

from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.translation import gettext as _

from jackpots import hooks
from jackpots.models import ChangeProposal, LedgerEntry, Level, LevelChange
from jackpots.services import core
from jackpots.services.errors import EngineError
from jackpots.services.level_write import Locked, Written, levels_write
from jackpots.services.levels import (
    PARAM_FIELDS,
    ledger_entry,
    level_params,
    level_state,
    trigger_draw,
)
from jackpots.services.states import level_retired_error

INT_FIELDS = {"reset_mc", "limit_mc", "min_wager_cents"}
RATE_FIELDS = {"rate", "reserve_rate"}
BOOL_FIELDS = {"max_bet_only", "mystery"}

# A parameter's value as ``core.Params`` holds it, and as the change log's JSON keeps it (rates as text).
Value = Decimal | int | bool | None
JsonValue = str | int | bool | None


def _json(value: Value) -> JsonValue:
    return str(value) if isinstance(value, Decimal) else value


def _parse(name: str, value: object) -> Value:
    if name in RATE_FIELDS:
        try:
            rate = Decimal(str(value))
        except (InvalidOperation, ValueError):
            raise EngineError("invalid_parameter", f"{name} must be a decimal number.") from None
        if not (Decimal(0) <= rate < Decimal(1)) or rate != rate.quantize(Decimal("0.00000001")):
            raise EngineError(
                "invalid_parameter", f"{name} must be at least 0, below 1, with 8 decimals at most."
            )
        return rate
    if name in INT_FIELDS:
        if value is None and name == "limit_mc":
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise EngineError("invalid_parameter", f"{name} must be a whole number, 0 or more.")
        return value
    if name in BOOL_FIELDS:
        if not isinstance(value, bool):
            raise EngineError("invalid_parameter", f"{name} must be true or false.")
        return value
    raise EngineError("unknown_parameter", f"{name} is not a level parameter.")


def params_validate(params: core.Params) -> None:
    if params.limit_mc is not None and params.limit_mc <= params.reset_mc:
        raise EngineError("invalid_parameter", _("The limit must be above the reset value."))
    if params.mystery and params.limit_mc is None:
        raise EngineError("invalid_parameter", _("A mystery level needs a limit (its must-hit-by amount)."))


def parameters_set(level: Level, params: core.Params) -> None:
    for name in PARAM_FIELDS:
        setattr(level, name, getattr(params, name))


def staged_changes_apply(level: Level, at: datetime, cycle: int) -> core.Params:
    """At a reset: the staged changes take effect, in the order they were made. Returns the new params."""
    staged = list(LevelChange.objects.filter(level=level, state=LevelChange.State.STAGED).order_by("id"))
    values = dataclasses.asdict(level_params(level))
    for change in staged:
        for name, value in change.new.items():
            values[name] = _parse(name, value)
    params = core.Params(**values)
    if staged:
        parameters_set(level, params)
        LevelChange.objects.filter(pk__in=[c.pk for c in staged]).update(
            state=LevelChange.State.APPLIED, applied_at=at, applied_cycle=cycle
        )
        # The rules the player is told come from the parameters: the signs get the new ones.
        hooks.rules_changed_on_commit(level.progressive_id)
    return params


def params_changed(params: core.Params, changes: dict[str, Value]) -> core.Params:
    """``params`` with ``changes`` (names ``_parse`` checked) in place of their values."""
    values = dataclasses.asdict(params)
    values.update(changes)
    return core.Params(**values)


def parameters_proposed(level: Level, changes: dict[str, object]) -> dict[str, JsonValue]:
    """``changes`` checked against the level as it stands (each value parsed, the whole set valid), as
    the JSON a proposal keeps. Bad input raises EngineError."""
    if not changes:
        raise EngineError("no_changes", _("Name at least one parameter to change."))
    parsed = {name: _parse(name, value) for name, value in changes.items()}
    params_validate(params_changed(level_params(level), parsed))
    return {name: _json(value) for name, value in parsed.items()}


def level_parameters_change(
    level: Level,
    user: User | None,
    changes: dict[str, object],
    reason: str,
    *,
    proposal: ChangeProposal | None = None,
) -> LevelChange:
    """Stages ``changes`` (parameter name → new value) until the next reset, or applies them at once when
    the level is suspended; a retired level is refused. A reason is required; bad input raises
    EngineError and changes nothing. People change parameters through a proposal
    (``proposals.change_propose``): its approval calls this, and a suspended level's seed row names the
    ``proposal``."""
    if not reason or not reason.strip():
        raise EngineError("reason_required", _("A parameter change needs a reason."))
    if not changes:
        raise EngineError("no_changes", _("Name at least one parameter to change."))
    parsed = {name: _parse(name, value) for name, value in changes.items()}
    now = timezone.now()
    level_id = level.pk

    def step(locked: Locked) -> Written[LevelChange]:
        level = locked.levels[level_id]
        if level.state == Level.State.RETIRED:
            raise level_retired_error(level)
        current = locked.params(level_id)
        params = params_changed(current, parsed)
        params_validate(params)
        old = {name: _json(getattr(current, name)) for name in parsed}
        new = {name: _json(value) for name, value in parsed.items()}
        applied = {"applied_at": now, "applied_cycle": level.cycle} if level.suspended else {}
        change = LevelChange.objects.create(
            level=level,
            user=user,
            at=now,
            old=old,
            new=new,
            reason=reason.strip(),
            state=LevelChange.State.APPLIED if level.suspended else LevelChange.State.STAGED,
            **applied,
        )
        if not level.suspended:
            return Written(result=change)
        state, entry = _suspended_apply(
            level, params, now, reference=f"change {change.pk}", proposal=proposal
        )
        hooks.rules_changed_on_commit(level.progressive_id)
        return Written({level_id: state}, [entry], result=change)

    return levels_write([level_id], step).returned()


def _suspended_apply(
    level: Level, params: core.Params, now: datetime, reference: str, proposal: ChangeProposal | None = None
) -> tuple[core.State, LedgerEntry]:
    """A suspended level takes the new parameters now: the carry base restarts (the rate may differ), the
    amount is brought up to a higher reset value (seeded) or down to a lower limit (the excess to overflow,
    a limit breach: rule 3), and a mystery trigger is drawn again. Returns its new state and seed row."""
    state = level_state(level)
    topped = max(0, params.reset_mc - state.current_mc)
    excess = 0 if params.limit_mc is None else max(0, state.current_mc + topped - params.limit_mc)
    current = state.current_mc + topped - excess
    new = dataclasses.replace(
        state,
        current_mc=current,
        overflow_mc=state.overflow_mc + excess,
        seq=state.seq + 1,
        carry_wagered_cents=0,
        carry_added_mc=0,
        carry_reserved_mc=0,
        trigger_mc=trigger_draw(params, current),  # drawn from where the level now stands
    )
    movement = core.Movement(
        current_delta_mc=topped - excess, overflow_delta_mc=excess, seeded_mc=topped, carry_restart=True
    )
    parameters_set(level, params)
    entry = ledger_entry(
        level,
        LedgerEntry.Kind.SEED,
        movement,
        new,
        at=now,
        params=params,
        reference=reference,
        proposal=proposal,
    )
    return new, entry
