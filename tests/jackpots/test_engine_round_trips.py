"""The engine's round trips: every touched level written by one statement, and the worker's database
connection kept from one task to the next."""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from types import SimpleNamespace

import pytest
from celery.fixups.django import DjangoWorkerFixup
from django.db import connection

from config.celery import app, connections_tidy
from jackpots.models import Level
from jackpots.services import contributions_batch_apply, core
from jackpots.services.levels import level_create, level_state, levels_lock, levels_state_save
from tests.jackpots.factories import GameEventFactory
from tests.jackpots.helpers import GRAND, progressive_with_machines


@pytest.mark.postgres
def test_levels_state_save_writes_every_level_in_one_statement(db, django_assert_num_queries) -> None:
    progressive, _machines = progressive_with_machines(1)
    grand = level_create(progressive, name="Grand", position=1, params=GRAND)
    minor = level_create(
        progressive,
        name="Minor",
        position=2,
        params=core.Params(reset_mc=5_000_000, rate=Decimal("0.005"), limit_mc=9_000_000),
    )
    levels = levels_lock([grand.id, minor.id])
    states = {
        grand.id: dataclasses.replace(level_state(levels[grand.id]), current_mc=100_123_456, seq=7),
        minor.id: dataclasses.replace(
            level_state(levels[minor.id]), current_mc=5_000_999, seq=3, trigger_mc=None, hits=2
        ),
    }
    levels[minor.id].rate = Decimal("0.00612345")  # a staged change applied at a reset
    with django_assert_num_queries(1):
        levels_state_save([levels[grand.id], levels[minor.id]], states)
    assert list(
        Level.objects.order_by("id").values_list("id", "current_mc", "seq", "hits", "trigger_mc", "rate")
    ) == [
        (grand.id, 100_123_456, 7, 0, None, Decimal("0.01000000")),
        (minor.id, 5_000_999, 3, 2, None, Decimal("0.00612345")),
    ]
    assert levels[grand.id].current_mc == 100_123_456


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_worker_keeps_its_connection_between_tasks() -> None:
    connection.ensure_connection()
    opened = connection.connection
    task = SimpleNamespace(request=SimpleNamespace(is_eager=False))
    connections_tidy(task=task)
    DjangoWorkerFixup(app).close_database()  # what Celery runs before and after each task
    connections_tidy(task=task)
    assert connection.connection is opened
    connection.close_at = 0  # past CONN_MAX_AGE: closed as after a request
    connections_tidy(task=task)
    assert connection.connection is None


@pytest.mark.postgres
def test_a_batch_of_events_takes_thirteen_round_trips(linked, django_assert_num_queries) -> None:
    """A batch's fixed cost in round trips, under a test's transaction (the outer savepoint and its release
    stand for BEGIN and COMMIT): the claim turn; the batch row, pick, seat and leaving the turn in one; the
    mark with the batch's count; memberships, seat wait and level ids in one; the level write's savepoint,
    level locks, seat left, levels, ledger, release; the machines' shares."""
    _, machines, _level = linked
    for i in range(6):
        GameEventFactory(machine=machines[i % 4], wager_cents=200)
    with django_assert_num_queries(13):
        assert contributions_batch_apply(10) == 6
