"""Staff in each role, with the groups and permissions floor.roles gives them after migrate."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User


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


def level_seeded(*, progressive, name: str = "Grand", position: int = 1, **params):
    """A level created by the engine (seeded, its first ledger row written): €1,000 reset, 1% rate."""
    from decimal import Decimal

    from jackpots.services import core
    from jackpots.services.levels import level_create

    values = {"reset_mc": 100_000_000, "rate": Decimal("0.01"), "reserve_rate": Decimal("0.002"), **params}
    return level_create(progressive, name=name, position=position, params=core.Params(**values))
