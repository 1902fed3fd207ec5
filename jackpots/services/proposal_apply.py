"""What an approved proposal does to the levels' money (``proposals.change_approve`` calls these inside its
transaction, under the levels' row locks, through ``levels_write``). Each writes its own ledger kind naming
the proposal, so every row names the person who proposed it and the one who approved it.

- A correction moves the level's amount by its signed amount (above the limit, the excess to overflow, as
  a contribution's would); never below the reset value (rule 3), never negative.
- A top-up is the house's money put in (``seeded_mc``), the same way.
- A transfer moves money players funded above the seed (``liability_mc``) from one level to another's
  reserve, which funds that level's next start exactly (``core.reset``): out + in sum to zero.
- A retirement moves each level's whole liability out (to a target level's reserve, or to the register of
  retired liabilities) and marks the level retired: it keeps its reset value, its history and its reports.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import TypeVar

from django.utils.translation import gettext as _

from common.money import mc_eur_grouped
from jackpots.models import ChangeProposal, LedgerEntry, Level, RetiredLiability
from jackpots.services import core
from jackpots.services.errors import EngineError
from jackpots.services.level_write import Locked, Written, levels_write
from jackpots.services.levels import ledger_entry

T = TypeVar("T")


def _given(value: int | None, what: str) -> int:
    """A field the proposal's kind requires (``change_propose`` set it): None would be a broken row."""
    if value is None:
        raise ValueError(f"the proposal has no {what}")
    return value


def liability_mc(params: core.Params, state: core.State) -> int:
    """What players funded above the seed: the amount above the reset value (the sub-cent rest with it),
    the reserve and the overflow. The reset value itself is the house's."""
    return max(0, state.current_mc - params.reset_mc) + state.reserve_mc + state.overflow_mc


def level_liability_mc(level: Level) -> int:
    return max(0, level.current_mc - level.reset_mc) + level.reserve_mc + level.overflow_mc


def level_usable(level: Level) -> None:
    if level.state == Level.State.RETIRED:
        raise EngineError("level_retired", _("%(level)s is retired: it takes no change.") % {"level": level})


def correction_check(level: Level, amount_mc: int) -> None:
    """A correction leaves the amount at or above the reset value (and so never negative)."""
    after = level.current_mc + amount_mc
    if after < 0:
        raise EngineError(
            "amount_negative",
            _("The correction would make the amount of %(level)s negative (€ %(after)s).")
            % {"level": level, "after": mc_eur_grouped(after)},
        )
    if after < level.reset_mc:
        raise EngineError(
            "below_reset",
            _("The correction would bring %(level)s below its reset value (€ %(after)s < € %(reset)s).")
            % {"level": level, "after": mc_eur_grouped(after), "reset": mc_eur_grouped(level.reset_mc)},
        )


def transfer_check(level: Level, target: Level | None, amount_mc: int) -> None:
    if target is None:
        raise EngineError("target_required", _("A transfer needs the level that receives it."))
    if target.pk == level.pk:
        raise EngineError("same_level", _("A level cannot transfer to itself."))
    level_usable(target)
    available = level_liability_mc(level)
    if amount_mc > available:
        raise EngineError(
            "exceeds_liability",
            _("%(level)s holds € %(available)s above its reset value: it cannot transfer € %(amount)s.")
            % {
                "level": level,
                "available": mc_eur_grouped(available),
                "amount": mc_eur_grouped(amount_mc),
            },
        )


def _inflow(params: core.Params, state: core.State, amount_mc: int) -> tuple[core.State, int, int]:
    """Money put into the displayed amount (a correction or a top-up): up to the limit, the rest to
    overflow (which joins the next start); a negative amount comes out of the displayed amount."""
    to_current = amount_mc
    if amount_mc > 0 and params.limit_mc is not None:
        to_current = max(0, min(amount_mc, params.limit_mc - state.current_mc))
    to_overflow = amount_mc - to_current
    new = dataclasses.replace(
        state,
        current_mc=state.current_mc + to_current,
        overflow_mc=state.overflow_mc + to_overflow,
        seq=state.seq + 1,
    )
    return new, to_current, to_overflow


def _outflow(params: core.Params, state: core.State, amount_mc: int) -> core.State:
    """Takes ``amount_mc`` of the liability out: the overflow first, then the reserve, then the amount
    above the reset value (what players see last)."""
    from_overflow = min(amount_mc, state.overflow_mc)
    from_reserve = min(amount_mc - from_overflow, state.reserve_mc)
    from_current = amount_mc - from_overflow - from_reserve
    return dataclasses.replace(
        state,
        current_mc=state.current_mc - from_current,
        reserve_mc=state.reserve_mc - from_reserve,
        overflow_mc=state.overflow_mc - from_overflow,
        seq=state.seq + 1,
    )


def _row(
    level: Level,
    kind: str,
    before: core.State,
    after: core.State,
    *,
    at: datetime,
    proposal: ChangeProposal,
    corrected_mc: int = 0,
    seeded_mc: int = 0,
    transferred_mc: int = 0,
) -> LedgerEntry:
    movement = core.Movement(
        current_delta_mc=after.current_mc - before.current_mc,
        reserve_delta_mc=after.reserve_mc - before.reserve_mc,
        overflow_delta_mc=after.overflow_mc - before.overflow_mc,
        corrected_mc=corrected_mc,
        seeded_mc=seeded_mc,
        transferred_mc=transferred_mc,
    )
    return ledger_entry(
        level, kind, movement, after, at=at, proposal=proposal, reference=f"proposal {proposal.pk}"
    )


def inflow_apply(proposal: ChangeProposal, at: datetime) -> None:
    """A correction (signed, ``corrected_mc``) or a top-up (``seeded_mc``)."""
    level_id = _given(proposal.level_id, "level")
    amount = _given(proposal.amount_mc, "amount")
    correction = proposal.kind == ChangeProposal.Kind.CORRECTION

    def step(locked: Locked) -> Written[None]:
        level = locked.levels[level_id]
        level_usable(level)
        if correction:
            correction_check(level, amount)
        before = locked.state(level_id)
        after, _to_current, _to_overflow = _inflow(locked.params(level_id), before, amount)
        kind, money = (
            (LedgerEntry.Kind.CORRECTION, {"corrected_mc": amount})
            if correction
            else (LedgerEntry.Kind.TOPUP, {"seeded_mc": amount})
        )
        return Written(
            {level_id: after}, [_row(level, kind, before, after, at=at, proposal=proposal, **money)]
        )

    levels_write([level_id], step)


def _transfer(
    locked: Locked,
    written: Written[T],
    source_id: int,
    target_id: int | None,
    amount_mc: int,
    *,
    at: datetime,
    proposal: ChangeProposal,
) -> None:
    """One transfer-out row on the source and its transfer-in row on the target (into the reserve)."""
    before = written.states.get(source_id) or locked.state(source_id)
    after = _outflow(locked.params(source_id), before, amount_mc)
    written.states[source_id] = after
    out = _row(
        locked.levels[source_id],
        LedgerEntry.Kind.TRANSFER_OUT,
        before,
        after,
        at=at,
        proposal=proposal,
        transferred_mc=-amount_mc,
    )
    written.entries.append(out)
    if target_id is None:
        return
    t_before = written.states.get(target_id) or locked.state(target_id)
    t_after = dataclasses.replace(t_before, reserve_mc=t_before.reserve_mc + amount_mc, seq=t_before.seq + 1)
    written.states[target_id] = t_after
    written.entries.append(
        _row(
            locked.levels[target_id],
            LedgerEntry.Kind.TRANSFER_IN,
            t_before,
            t_after,
            at=at,
            proposal=proposal,
            transferred_mc=amount_mc,
        )
    )


def transfer_apply(proposal: ChangeProposal, at: datetime) -> None:
    source_id = _given(proposal.level_id, "level")
    target_id = proposal.target_level_id  # None: transfer_check refuses it
    amount = _given(proposal.amount_mc, "amount")

    def step(locked: Locked) -> Written[None]:
        level = locked.levels[source_id]
        level_usable(level)
        transfer_check(level, locked.levels.get(target_id) if target_id is not None else None, amount)
        written: Written[None] = Written()
        _transfer(locked, written, source_id, target_id, amount, at=at, proposal=proposal)
        return written

    levels_write([source_id, *([target_id] if target_id is not None else [])], step)


def retirement_apply(proposal: ChangeProposal, at: datetime) -> list[tuple[Level, int]]:
    """Every level of the progressive: its liability out (to the target's reserve or to the register),
    then retired. Returns each level with the liability it moved."""
    progressive_id = _given(proposal.progressive_id, "progressive")
    level_ids = list(Level.objects.filter(progressive_id=progressive_id).values_list("id", flat=True))
    target_id = proposal.target_level_id

    def step(locked: Locked) -> Written[list[tuple[Level, int]]]:
        if target_id is not None:
            level_usable(locked.levels[target_id])
        moved: list[tuple[Level, int]] = []
        written = Written(result=moved)
        for level_id in level_ids:
            level = locked.levels[level_id]
            if level.state == Level.State.RETIRED:
                continue
            amount = liability_mc(locked.params(level_id), locked.state(level_id))
            moved.append((level, amount))
            if amount:
                _transfer(locked, written, level_id, target_id, amount, at=at, proposal=proposal)
        return written

    moved = levels_write([*level_ids, *([target_id] if target_id else [])], step).returned()
    for level, amount in moved:
        if amount and target_id is None:
            RetiredLiability.objects.create(
                progressive_id=progressive_id,
                level=level,
                amount_mc=amount,
                at=at,
                proposal=proposal,
            )
    Level.objects.filter(pk__in=[level.pk for level, _amount in moved]).update(state=Level.State.RETIRED)
    return moved
