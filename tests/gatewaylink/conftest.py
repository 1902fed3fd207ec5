"""Fixtures of the gateway tests (their helpers are in helpers.py): a venue with two SAS machines
(line-1, addresses 1 and 2) and one off SAS, playing a progressive broadcast as SAS group 1 with a
machine-triggered Grand and a mystery Minor."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.gatewaylink.helpers import Floor, sas_floor


@pytest.fixture
def floor(transactional_db) -> Floor:
    return sas_floor()


@pytest.fixture
def floor_db(db) -> Floor:
    return sas_floor()


@pytest.fixture
async def close_db_in_worker_thread():
    yield
    from asgiref.sync import sync_to_async
    from django.db import connections

    await sync_to_async(connections.close_all)()


@pytest.fixture
def slow_heartbeat(settings) -> None:
    """No heartbeat within a test unless it asks: the frame a test waits for is the next one however slow
    the machine (a 5 s heartbeat could come first under load). Outside the setting's range (at most 5 s)."""
    settings.GATEWAY_HEARTBEAT_SECONDS = Decimal("3600")


# Staff in each role, for the admin tests (the same fixtures as the floor's).
from tests.floor.staff import attendant, manager  # noqa: E402, F401
