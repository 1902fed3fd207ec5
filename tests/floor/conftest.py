"""Fixtures of the floor tests: staff in each role and raw events written the way the ingest stores them."""

from __future__ import annotations

import hashlib
from datetime import datetime

import pytest
from django.contrib.auth.models import Group, User
from django.utils import timezone

from slots.models import MachineEvent, SlotMachine


def _staff(username: str, role: str | None) -> User:
    user = User.objects.create_user(username, password="pw-" + username, is_staff=True)
    if role:
        # The groups and their permissions come from floor.roles, applied after migrate.
        user.groups.add(Group.objects.get(name=role))
    return user


@pytest.fixture
def manager(db) -> User:
    return _staff("manager", "Floor manager")


@pytest.fixture
def manager2(db) -> User:
    return _staff("manager2", "Floor manager")


@pytest.fixture
def attendant(db) -> User:
    return _staff("attendant", "Slot attendant")


@pytest.fixture
def auditor(db) -> User:
    return _staff("auditor", "Auditor")


@pytest.fixture
def plain_staff(db) -> User:
    return _staff("clerk", None)


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
