"""Plain helpers of the engine's tests (the fixtures are in conftest.py)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client
from django.utils import timezone

from jackpots.services import core
from slots.models import MachineEvent
from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, SlotMachineFactory

GRAND = core.Params(reset_mc=100_000_000, rate=Decimal("0.01"), reserve_rate=Decimal("0.002"))


def progressive_with_machines(count: int, name: str = "Diamond Vault", **fields):
    progressive = ProgressiveFactory(name=name, **fields)
    machines = [SlotMachineFactory() for _ in range(count)]
    for machine in machines:
        ProgressiveMachineFactory(progressive=progressive, machine=machine)
    return progressive, machines


def logged_in(role: str) -> tuple[Client, object]:
    """A client logged in as a new staff member of the role's group, and that user."""
    user = get_user_model().objects.create_user(username=role, password="not-used", is_staff=True)
    user.groups.add(Group.objects.get(name=role))
    client = Client()
    client.force_login(user)
    return client, user


def pending_games(machines, first_seq: int, count: int, wager: Callable[[int], int]) -> list[MachineEvent]:
    """``count`` pending game events played now, round-robin over ``machines``, seqs from ``first_seq``;
    the i-th wagers ``wager(i)`` cents (unsaved: the tests bulk-create them)."""
    now = timezone.now()
    return [
        MachineEvent(
            machine=machines[i % len(machines)],
            seq=first_seq + i,
            type=MachineEvent.Type.GAME,
            at=now,
            received_at=now,
            digest="0" * 40,
            payload={},
            wager_cents=wager(i),
            win_cents=0,
            is_max_bet=False,
            pending=True,
        )
        for i in range(count)
    ]
