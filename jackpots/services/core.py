"""The engine's pure core: small functions over a level's parameters and state, no database.

Both the batch path (``contributions_apply``) and the table games build on these, so a level grows,
overflows, pays and resets the same way whatever feeds it. Every function returns a new state and a
record of the money that moved; callers persist both (the level row and a ledger row).

Money (see docs/design.md "Money"): wagers and awards are integer cents, pool amounts integer millicents,
rates exact ``Decimal``s turned into integer fractions, so no float and no rounding per event.

- ``contribute(params, state, wagered_cents)``: adds eligible wagers. The carry rule: since the carry
  base (cycle start), amounts added == floor(wagered x rate) and reserve added == floor(wagered x
  reserve_rate), exactly; the fraction below a millicent stays in the carry, never lost. The displayed
  share goes to ``current`` up to the limit, the rest to ``overflow`` (NJ 13:69E-1.39A, rule 3).
- ``mystery_crossed(params, state, wagered_cents)``: would this wager push current to the secret trigger?
- ``award(params, state, mode, value, winners, ...)``: a win. ``WHOLE`` pays the current amount (split
  equally among ``winners``, whole cents each; to one winner no more than the machine paid itself) and
  resets; ``SHARE`` pays a percentage of it (no reset; the amount never drops below the reset value, the
  house tops it up); ``FIXED`` pays a fixed amount from the house and leaves the level alone. Whatever
  is not paid out in whole cents stays in the pool.
- ``reset(params, state, randbelow)``: starts the next cycle at reset + reserve + overflow (overflow joins
  the reserve) + the award's unpaid rest, capped at the limit (what exceeds it stays in reserve for the
  cycle after), and draws a mystery level's next trigger from that start. The staged parameters are the
  ``params`` passed in.
- ``draw_trigger(params, start_mc, randbelow)``: a mystery trigger uniformly above the cycle's start and
  below the limit; at (or within a millicent of) the limit, the start itself (see there).

Conservation, for every level and any sequence of these calls:
    contributed + reserved + seeded == current + reserve + overflow + awarded     (millicents)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from common.money import MC_PER_CENT  # the one definition; the engine's callers read it here too


class AwardMode(StrEnum):
    WHOLE = "whole"
    SHARE = "share"
    FIXED = "fixed"


@dataclass(frozen=True, slots=True)
class Params:
    reset_mc: int
    rate: Decimal
    reserve_rate: Decimal = Decimal(0)
    limit_mc: int | None = None
    min_wager_cents: int = 0
    max_bet_only: bool = False
    mystery: bool = False


@dataclass(frozen=True, slots=True)
class State:
    current_mc: int
    reserve_mc: int = 0
    overflow_mc: int = 0
    wagered_cents: int = 0
    hits: int = 0
    total_won_cents: int = 0
    cycle: int = 1
    seq: int = 0
    carry_wagered_cents: int = 0
    carry_added_mc: int = 0
    carry_reserved_mc: int = 0
    trigger_mc: int | None = None


@dataclass(frozen=True, slots=True)
class Movement:
    """The money one call moved: the level's meter deltas and what came in or went out."""

    current_delta_mc: int = 0
    reserve_delta_mc: int = 0
    overflow_delta_mc: int = 0
    contributed_mc: int = 0
    seeded_mc: int = 0
    awarded_mc: int = 0
    corrected_mc: int = 0
    transferred_mc: int = 0
    wagered_cents: int = 0
    carry_restart: bool = False


def share_mc(wagered_cents: int, rate: Decimal) -> int:
    """floor(wagered x rate) in millicents, exactly (integer arithmetic on the rate's fraction)."""
    num, den = rate.as_integer_ratio()
    return (wagered_cents * MC_PER_CENT * num) // den


def eligible(params: Params, wager_cents: int, is_max_bet: bool | None) -> bool:
    """Whether one wager of a member machine feeds the level (the machine's own state is the caller's)."""
    if wager_cents < params.min_wager_cents:
        return False
    return not params.max_bet_only or bool(is_max_bet)


def contribute(params: Params, state: State, wagered_cents: int) -> tuple[State, Movement]:
    if wagered_cents < 0:
        raise ValueError("wagered_cents must not be negative")
    if wagered_cents == 0:
        return state, Movement()
    carry_wagered = state.carry_wagered_cents + wagered_cents
    added = share_mc(carry_wagered, params.rate) - state.carry_added_mc
    reserved = share_mc(carry_wagered, params.reserve_rate) - state.carry_reserved_mc
    to_current = added
    if params.limit_mc is not None:
        to_current = max(0, min(added, params.limit_mc - state.current_mc))
    to_overflow = added - to_current
    new = dataclasses.replace(
        state,
        current_mc=state.current_mc + to_current,
        reserve_mc=state.reserve_mc + reserved,
        overflow_mc=state.overflow_mc + to_overflow,
        wagered_cents=state.wagered_cents + wagered_cents,
        seq=state.seq + 1,
        carry_wagered_cents=carry_wagered,
        carry_added_mc=state.carry_added_mc + added,
        carry_reserved_mc=state.carry_reserved_mc + reserved,
    )
    return new, Movement(
        current_delta_mc=to_current,
        reserve_delta_mc=reserved,
        overflow_delta_mc=to_overflow,
        contributed_mc=added + reserved,
        wagered_cents=wagered_cents,
    )


def mystery_crossed(params: Params, state: State, wagered_cents: int) -> bool:
    if not params.mystery or state.trigger_mc is None:
        return False
    after, _ = contribute(params, state, wagered_cents)
    return after.current_mc >= state.trigger_mc


def draw_trigger(params: Params, start_mc: int, randbelow: Callable[[int], int]) -> int | None:
    """The secret trigger of a cycle that starts at ``start_mc``; ``randbelow`` is ``secrets.randbelow``
    in production.

    Uniform in (start, limit), so inside [start, limit): drawn from the reset value instead, a cycle that
    starts higher (reserve, overflow, the sub-cent rest) would often find its trigger already behind it and
    hit on its first wager. Strictly above the start, so a wager that adds nothing never hits. When no whole
    millicent lies between the start and the limit, the trigger is the start: the level hits on its next
    eligible wager, as a must-hit-by level standing at its limit must."""
    if not params.mystery or params.limit_mc is None:
        return None
    room = params.limit_mc - start_mc - 1  # the millicents strictly between start and limit
    if room < 1:
        return start_mc
    return start_mc + 1 + randbelow(room)


def seed(params: Params) -> tuple[State, Movement]:
    """A new level: the house puts the reset value in. A mystery trigger is the caller's to draw, from the
    amount the level opens at (``draw_trigger``)."""
    state = State(current_mc=params.reset_mc, seq=1)
    return state, Movement(current_delta_mc=params.reset_mc, seeded_mc=params.reset_mc, carry_restart=True)


def reset(
    params: Params, state: State, randbelow: Callable[[int], int] | None = None
) -> tuple[State, Movement]:
    """Starts the next cycle from ``state`` whose award has already been taken out of current_mc.

    What is left in current (the sub-cent rest), the reserve and the overflow carry into the new start,
    and a mystery level's trigger is drawn from that start (``randbelow`` is required for one)."""
    if params.mystery and randbelow is None:
        raise ValueError("a mystery level's reset needs a source of randomness for its trigger")
    pot = params.reset_mc + state.current_mc + state.reserve_mc + state.overflow_mc
    start = pot if params.limit_mc is None else min(pot, max(params.limit_mc, params.reset_mc))
    new = dataclasses.replace(
        state,
        current_mc=start,
        reserve_mc=pot - start,
        overflow_mc=0,
        cycle=state.cycle + 1,
        seq=state.seq + 1,
        carry_wagered_cents=0,
        carry_added_mc=0,
        carry_reserved_mc=0,
        trigger_mc=draw_trigger(params, start, randbelow) if randbelow is not None else None,
    )
    return new, Movement(
        current_delta_mc=start - state.current_mc,
        reserve_delta_mc=(pot - start) - state.reserve_mc,
        overflow_delta_mc=-state.overflow_mc,
        seeded_mc=params.reset_mc,
        carry_restart=True,
    )


@dataclass(frozen=True, slots=True)
class Award:
    per_winner_cents: int
    winners: int
    paid_cents: int
    reset: bool
    locked_mc: int  # the level's amount the award was computed from


def award(
    params: Params,
    state: State,
    mode: AwardMode,
    value: Decimal | int = 0,
    *,
    winners: int = 1,
    next_params: Params | None = None,
    randbelow: Callable[[int], int] | None = None,
    paid_cap_cents: int | None = None,
) -> tuple[State, Movement, Award]:
    """A win on the level. ``value``: the share (e.g. Decimal("0.10")) for SHARE, cents for FIXED.

    ``next_params`` are the parameters of the next cycle (staged changes) when the win resets;
    ``randbelow`` draws a mystery level's next trigger then (see ``reset``).
    ``paid_cap_cents`` (WHOLE, one winner): the machine already credited the win itself and paid this
    much. The level pays out no more than that: what it held above the machine's payment stays in the
    pool and carries into the next cycle like the sub-cent rest, so no money leaves the pool that no
    player received. A machine that paid more than the level held takes the whole amount; the excess
    was the house's (recorded on the hit, never taken from the pool)."""
    if winners < 1:
        raise ValueError("an award needs at least one winner")
    if paid_cap_cents is not None and (mode is not AwardMode.WHOLE or winners != 1 or paid_cap_cents < 0):
        raise ValueError("a machine's own payment caps a whole award to one winner, by a non-negative amount")
    locked = state.current_mc
    if mode is AwardMode.FIXED:
        per = int(value)
        if per < 0:
            raise ValueError("a fixed award must not be negative")
        return state, Movement(), Award(per, winners, per * winners, False, locked)
    if mode is AwardMode.WHOLE:
        per = locked // MC_PER_CENT // winners
        if paid_cap_cents is not None:
            per = min(per, paid_cap_cents)
        paid_mc = per * winners * MC_PER_CENT
        taken = dataclasses.replace(
            state,
            current_mc=locked - paid_mc,
            hits=state.hits + 1,
            total_won_cents=state.total_won_cents + per * winners,
        )
        after, moved = reset(next_params or params, taken, randbelow)
        movement = dataclasses.replace(moved, current_delta_mc=after.current_mc - locked, awarded_mc=paid_mc)
        return after, movement, Award(per, winners, per * winners, True, locked)
    share = Decimal(value)
    if not Decimal(0) <= share <= Decimal(1):
        raise ValueError("a share must be between 0 and 1")
    share_of_pool_mc = share_mc(locked, share) // MC_PER_CENT  # floor(locked x share)
    per = share_of_pool_mc // MC_PER_CENT // winners
    paid_mc = per * winners * MC_PER_CENT
    remaining = locked - paid_mc
    topped = max(0, params.reset_mc - remaining)  # rule 3: never below the reset value
    after = dataclasses.replace(
        state,
        current_mc=remaining + topped,
        hits=state.hits + 1,
        total_won_cents=state.total_won_cents + per * winners,
        seq=state.seq + 1,
    )
    movement = Movement(current_delta_mc=topped - paid_mc, seeded_mc=topped, awarded_mc=paid_mc)
    return after, movement, Award(per, winners, per * winners, False, locked)
