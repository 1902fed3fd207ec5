"""The worker's database connection across a PostgreSQL restart: checked before each task, so the engine's
first task after the restart runs on a new connection instead of failing inside its transaction."""

from __future__ import annotations

import psycopg
import pytest
from celery.signals import task_postrun, task_prerun
from django.db import connection

from jackpots.tasks import contributions_apply_task
from tests.factories import SlotMachineFactory
from tests.jackpots.factories import GameEventFactory


def connection_kill() -> None:
    """What a PostgreSQL restart does to the worker's kept connection: the server ends it."""
    pid = connection.connection.info.backend_pid
    db = connection.settings_dict
    with psycopg.connect(host=db["HOST"], port=db["PORT"], user=db["USER"], dbname=db["NAME"]) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])


def task_run() -> int:
    """The task as a worker runs it: with the worker's signals around the call."""
    task = contributions_apply_task
    task.push_request(is_eager=False)
    try:
        task_prerun.send(sender=task, task_id="t", task=task, args=(), kwargs={})
        try:
            return task.run()
        finally:
            task_postrun.send(sender=task, task_id="t", task=task, args=(), kwargs={})
    finally:
        task.pop_request()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_first_engine_task_after_a_database_restart_runs_on_a_new_connection() -> None:
    event = GameEventFactory(machine=SlotMachineFactory(), seq=1)
    connection_kill()

    assert task_run() == 1
    event.refresh_from_db()
    assert (event.pending, event.applied_at is not None) == (False, True)
