"""Fixtures of the floor tests: staff members in each role."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from floor.roles import AUDITOR, FLOOR_MANAGER, SLOT_ATTENDANT


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
