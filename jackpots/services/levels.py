"""Between the pure core and the database: a Level row as core Params/State, ledger rows, locks."""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db import connection
from django.db.models import Field
from django.utils import timezone

from jackpots.models import LedgerEntry, Level, Progressive
from jackpots.services import core

STATE_FIELDS = [f.name for f in dataclasses.fields(core.State)]
PARAM_FIELDS = [f.name for f in dataclasses.fields(core.Params)]

# A level as JSON (``snapshot``): what a hit keeps in a JSONField to restore the level on a void.
Snapshot = dict[str, dict[str, Any]]


def level_params(level: Level) -> core.Params:
    return core.Params(
        reset_mc=level.reset_mc,
        rate=Decimal(level.rate),
        reserve_rate=Decimal(level.reserve_rate),
        limit_mc=level.limit_mc,
        min_wager_cents=level.min_wager_cents,
        max_bet_only=level.max_bet_only,
        mystery=level.mystery,
    )


def level_state(level: Level) -> core.State:
    return core.State(**{name: getattr(level, name) for name in STATE_FIELDS})


def level_state_set(level: Level, state: core.State) -> None:
    for name in STATE_FIELDS:
        setattr(level, name, getattr(state, name))


def _level_state_save(level: Level, state: core.State) -> None:
    """One UPDATE of the level row (its parameters too: a reset may have applied staged changes)."""
    level_state_set(level, state)
    level.save(update_fields=STATE_FIELDS + PARAM_FIELDS)


def levels_state_save(levels: list[Level], states: dict[int, core.State]) -> None:
    """Writes each level's state and parameters, as ``_level_state_save`` does, in ONE statement on
    PostgreSQL: a batch touching a dozen levels pays one round trip instead of a dozen. Only
    ``level_write.levels_write`` calls it: it publishes what it wrote."""
    if connection.vendor != "postgresql":
        for level in levels:
            _level_state_save(level, states[level.id])
        return
    if not levels:
        return
    for level in levels:
        level_state_set(level, states[level.id])
    own = _level_columns()
    fields = [field for field, _ in own]
    columns = [connection.ops.quote_name(column) for _, column in own]
    arrays = ", ".join(["%s::bigint[]"] + [f"%s::{field.cast_db_type(connection)}[]" for field in fields])
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {connection.ops.quote_name(Level._meta.db_table)} AS l SET "
            + ", ".join(f"{column} = v.{column}" for column in columns)
            + f" FROM unnest({arrays}) AS v(id, {', '.join(columns)}) WHERE l.id = v.id",
            [[level.id for level in levels]]
            + [[getattr(level, field.attname) for level in levels] for field in fields],
        )


def _level_columns() -> list[tuple[Field[Any, Any], str]]:
    """(field, column) of the level's state and parameters: its own columns, never a relation."""
    own = []
    for name in STATE_FIELDS + PARAM_FIELDS:
        field = Level._meta.get_field(name)
        assert isinstance(field, Field) and field.column is not None
        own.append((field, field.column))
    return own


def levels_lock(level_ids: Iterable[int]) -> dict[int, Level]:
    """Locks the levels in primary-key order (the one order every writer uses, so no deadlock)."""
    rows = Level.objects.select_for_update(of=("self",)).filter(id__in=set(level_ids)).order_by("id")
    return {level.id: level for level in rows}


def trigger_randbelow(n: int) -> int:
    """The source of mystery triggers: the operating system's CSPRNG (looked up at each call)."""
    return secrets.randbelow(n)


def trigger_draw(params: core.Params, start_mc: int) -> int | None:
    """A mystery trigger for a cycle that starts at ``start_mc`` (``core.draw_trigger``)."""
    return core.draw_trigger(params, start_mc, trigger_randbelow)


def ledger_entry(
    level: Level,
    kind: str,
    movement: core.Movement,
    state: core.State,
    *,
    at: datetime,
    params: core.Params | None = None,
    **extra: object,
) -> LedgerEntry:
    """An unsaved ledger row for ``movement``; ``state`` is the level after it."""
    if params is not None:
        extra.setdefault("rate", params.rate)
        extra.setdefault("reserve_rate", params.reserve_rate)
        extra.setdefault("min_wager_cents", params.min_wager_cents)
        extra.setdefault("max_bet_only", params.max_bet_only)
    return LedgerEntry(
        level=level,
        kind=kind,
        at=at,
        cycle=state.cycle,
        level_seq=state.seq,
        wagered_cents=movement.wagered_cents,
        current_delta_mc=movement.current_delta_mc,
        reserve_delta_mc=movement.reserve_delta_mc,
        overflow_delta_mc=movement.overflow_delta_mc,
        contributed_mc=movement.contributed_mc,
        seeded_mc=movement.seeded_mc,
        awarded_mc=movement.awarded_mc,
        corrected_mc=movement.corrected_mc,
        transferred_mc=movement.transferred_mc,
        carry_restart=movement.carry_restart,
        **extra,
    )


def snapshot(params: core.Params, state: core.State) -> Snapshot:
    """JSON-safe record of a level (for a void to restore it). Holds the trigger: auditors only."""
    return {
        "params": {k: str(v) if isinstance(v, Decimal) else v for k, v in dataclasses.asdict(params).items()},
        "state": dataclasses.asdict(state),
    }


def snapshot_params(data: Snapshot) -> core.Params:
    raw = dict(data["params"])
    raw["rate"] = Decimal(raw["rate"])
    raw["reserve_rate"] = Decimal(raw["reserve_rate"])
    return core.Params(**raw)


def snapshot_state(data: Snapshot) -> core.State:
    return core.State(**data["state"])


def level_create(
    progressive: Progressive,
    *,
    name: str,
    position: int,
    params: core.Params,
    opening_mc: int | None = None,
    at: datetime | None = None,
) -> Level:
    """A new level, seeded with its reset value (or an opening amount carried over from a previous
    system, at least the reset value) and its first mystery trigger; the seed is the ledger's first row."""
    level = Level(progressive=progressive, name=name, position=position, current_mc=0)
    for name_ in PARAM_FIELDS:
        setattr(level, name_, getattr(params, name_))
    state, movement = core.seed(params)
    if opening_mc is not None and opening_mc > params.reset_mc:
        extra = opening_mc - params.reset_mc
        state = dataclasses.replace(state, current_mc=opening_mc)
        movement = dataclasses.replace(
            movement, current_delta_mc=opening_mc, seeded_mc=movement.seeded_mc + extra
        )
    # Drawn from the amount the level opens at, so an opening amount cannot already be past it.
    state = dataclasses.replace(state, trigger_mc=trigger_draw(params, state.current_mc))
    level_state_set(level, state)
    level.save()
    ledger_entry(
        level,
        LedgerEntry.Kind.SEED,
        movement,
        state,
        at=at or timezone.now(),
        params=params,
        reference="opening",
    ).save()
    return level
