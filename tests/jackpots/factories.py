"""Factories of the engine's tests (the shared ones are in tests/factories.py)."""

from __future__ import annotations

import datetime as dt

import factory
from django.utils import timezone

from slots.models import MachineEvent

_last_at = [dt.datetime.min.replace(tzinfo=dt.UTC)]


def _now_after_the_last() -> dt.datetime:
    """Now, but always after the previous event's time: the order of play (at, machine, seq) of events a
    test creates one after another is then the order it created them in."""
    now = max(timezone.now(), _last_at[0] + dt.timedelta(microseconds=1))
    _last_at[0] = now
    return now


class GameEventFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = MachineEvent

    seq = factory.Sequence(lambda n: n + 1)
    type = MachineEvent.Type.GAME
    at = factory.LazyFunction(_now_after_the_last)
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
