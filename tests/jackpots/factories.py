"""Factories of the engine's tests (the shared ones are in tests/factories.py)."""

from __future__ import annotations

import factory
from django.utils import timezone

from slots.models import MachineEvent


class GameEventFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = MachineEvent

    seq = factory.Sequence(lambda n: n + 1)
    type = MachineEvent.Type.GAME
    at = factory.LazyFunction(timezone.now)
    received_at = factory.LazyFunction(timezone.now)
    digest = "0" * 40
    payload = factory.LazyAttribute(lambda e: {"wager": e.wager_cents, "win": e.win_cents})
    wager_cents = 100
    win_cents = 0
    is_max_bet = False
    pending = True


class JackpotEventFactory(GameEventFactory):
    type = MachineEvent.Type.JACKPOT
    payload = factory.LazyAttribute(lambda e: {"level": e.level_id, "amount": e.amount_cents})
    wager_cents = None
    win_cents = None
    is_max_bet = None
