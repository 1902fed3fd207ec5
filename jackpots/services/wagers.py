"""Wagers that do not come as machine events (the table games' jackpot bets) feed a level here."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from jackpots import publish
from jackpots.models import LedgerEntry
from jackpots.services import core
from jackpots.services.errors import EngineError
from jackpots.services.levels import ledger_entry, level_params, level_state, level_state_save, levels_lock


def level_wager_add(
    level_id: int, wagered_cents: int, *, at: datetime | None = None, reference: str = ""
) -> core.Movement:
    """Adds an eligible wager to a level with the carry rule and writes its ledger row. Negative amounts
    are refused: a cancelled round is reversed by the caller's own compensating logic, not here."""
    if wagered_cents <= 0:
        raise EngineError("invalid_wager", "A wager must be a positive number of cents.")
    at = at or timezone.now()
    with transaction.atomic():
        level = levels_lock([level_id])[level_id]
        params = level_params(level)
        state, movement = core.contribute(params, level_state(level), wagered_cents)
        level_state_save(level, state)
        ledger_entry(
            level,
            LedgerEntry.Kind.CONTRIBUTION,
            movement,
            state,
            at=at,
            params=params,
            event_count=1,
            reference=reference,
        ).save()
        level_ids = [level_id]
        transaction.on_commit(lambda: publish.levels_changed(level_ids))
    return movement
