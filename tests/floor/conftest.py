"""Fixtures of the floor tests: staff in each role and raw events written the way the ingest stores them."""

from __future__ import annotations

import hashlib
from datetime import datetime

from django.utils import timezone

from slots.models import MachineEvent, SlotMachine
from tests.floor.staff import attendant, auditor, manager, manager2, plain_staff

__all__ = ["attendant", "auditor", "game_event", "manager", "manager2", "plain_staff"]


def game_event(machine: SlotMachine, seq: int, at: datetime, wager: int, win: int) -> MachineEvent:
    """A stored game event, as the events API keeps it (payload plus the denormalised columns)."""
    payload = {"wager": wager, "win": win}
    return MachineEvent(
        machine=machine,
        seq=seq,
        type=MachineEvent.Type.GAME,
        at=at,
        received_at=timezone.now(),
        digest=hashlib.sha1(f"{machine.pk}:{seq}".encode()).hexdigest(),
        payload=payload,
        wager_cents=wager,
        win_cents=win,
        bank_id=machine.bank_id,
        denomination_cents=machine.denomination_cents,
        is_max_bet=wager >= machine.max_bet_cents,
        pending=False,
    )
