"""The embedded default's stand-in for Celery beat: the beat schedule's tasks, called in-process."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command

from config.celery import app
from demo.services.start import admin_user_ensure
from demo.services.ticker import beat_jobs_run_due

SCHEDULE = {
    "fast": {"task": "tasks.fast", "schedule": 1.0},
    "slow": {"task": "tasks.slow", "schedule": timedelta(seconds=5)},
}


def test_each_job_runs_when_its_interval_has_passed() -> None:
    calls: list[str] = []
    last_run: dict[str, float] = {}

    ran = [beat_jobs_run_due(SCHEDULE, last_run, now, calls.append) for now in (100.0, 100.5, 101.0, 105.0)]

    assert ran == [["fast", "slow"], [], ["fast"], ["fast", "slow"]]
    assert calls == ["tasks.fast", "tasks.slow", "tasks.fast", "tasks.fast", "tasks.slow"]


def test_a_failing_job_does_not_stop_the_others() -> None:
    calls: list[str] = []

    def run(task: str) -> None:
        calls.append(task)
        if task == "tasks.fast":
            raise RuntimeError("database is down")

    assert beat_jobs_run_due(SCHEDULE, {}, 10.0, run) == ["fast", "slow"]
    assert calls == ["tasks.fast", "tasks.slow"]


def test_the_beat_schedule_names_the_periodic_tasks() -> None:
    tasks = {entry["task"] for entry in app.conf.beat_schedule.values()}
    assert {"slots.tasks.machines_mark_offline_task", "jackpots.tasks.contributions_apply_task"} <= tasks


@pytest.mark.django_db
def test_floor_ticker_calls_every_scheduled_task(monkeypatch: pytest.MonkeyPatch) -> None:
    app.loader.import_default_modules()
    called: list[str] = []
    for entry in app.conf.beat_schedule.values():
        task = app.tasks[entry["task"]]
        monkeypatch.setattr(task, "run", lambda *a, _name=task.name, **k: called.append(_name))
    out = StringIO()

    call_command("floor_ticker", "--ticks", "2", "--tick", "0.01", stdout=out)

    # Two ticks 10 ms apart: every job runs on the first, none is due again on the second.
    assert sorted(called) == sorted(entry["task"] for entry in app.conf.beat_schedule.values())
    assert out.getvalue() == "2 tick(s) done.\n"


@pytest.mark.django_db
def test_demo_admin_gets_a_new_password_each_time(django_user_model) -> None:
    first = admin_user_ensure()
    second = admin_user_ensure()
    admin = django_user_model.objects.get(username="admin")

    assert first != second
    assert admin.is_superuser
    assert admin.is_staff
    assert admin.check_password(second)
    assert not admin.check_password(first)
    out = StringIO()
    call_command("demo_admin", stdout=out)
    password = out.getvalue().split("password: ")[1].strip()
    admin.refresh_from_db()
    assert admin.check_password(password)
