"""Fixtures shared by the floor, workspace and common tests (loaded by tests/conftest.py): staff in each
role, raw events as the ingest stores them."""

from __future__ import annotations

import hashlib
from datetime import datetime

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.utils import timezone

from floor.roles import AUDITOR, FLOOR_MANAGER, SLOT_ATTENDANT
from slots.models import MachineEvent, SlotMachine

# The workspace tests' names for the same roles (tests/floor/staff.py); auditor is defined below.
from tests.floor.staff import attendant, manager, manager2, plain_staff  # noqa: F401


def staff_member(username: str, role: str | None, *, is_staff: bool = True):
    user = get_user_model().objects.create_user(username=username, password="not-used", is_staff=is_staff)
    if role is not None:
        user.groups.add(Group.objects.get(name=role))
    return user


@pytest.fixture
def floor_manager(db):
    return staff_member("manager", FLOOR_MANAGER)


@pytest.fixture
def slot_attendant(db):
    return staff_member("attendant", SLOT_ATTENDANT)


@pytest.fixture
def auditor(db):
    return staff_member("auditor", AUDITOR)


@pytest.fixture
def role_users(floor_manager, slot_attendant, auditor) -> dict:
    return {FLOOR_MANAGER: floor_manager, SLOT_ATTENDANT: slot_attendant, AUDITOR: auditor}


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
