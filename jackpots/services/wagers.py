"""Wagers that do not come as machine events (the table games' jackpot bets) feed a level here."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from jackpots.models import LedgerEntry
from jackpots.services import core
from jackpots.services.errors import EngineError
from jackpots.services.level_write import Locked, Written, levels_write
from jackpots.services.levels import ledger_entry


def level_wager_add(
    level_id: int, wagered_cents: int, *, at: datetime | None = None, reference: str = ""
) -> core.Movement:
    """Adds an eligible wager to a level with the carry rule and writes its ledger row. Negative amounts
    are refused: a cancelled round is reversed by the caller's own compensating logic, not here."""
    if wagered_cents <= 0:
        raise EngineError("invalid_wager", "A wager must be a positive number of cents.")
    at = at or timezone.now()

    def step(locked: Locked) -> Written[core.Movement]:
        params = locked.params(level_id)
        state, movement = core.contribute(params, locked.state(level_id), wagered_cents)
        entry = ledger_entry(
            locked.levels[level_id],
            LedgerEntry.Kind.CONTRIBUTION,
            movement,
            state,
            at=at,
            params=params,
            event_count=1,
            reference=reference,
        )
        return Written({level_id: state}, [entry], result=movement)

    return levels_write([level_id], step).returned()
