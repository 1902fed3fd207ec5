"""Login throttling, database session limits and task time limits (config/settings.py)."""

from __future__ import annotations

import psycopg
import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client

from config.celery import app

ADMIN_LOGIN = "/admin/login/?next=/admin/"


def _login(client: Client, password: str, address: str = "10.1.2.3", username: str = "manager") -> int:
    response = client.post(
        ADMIN_LOGIN, {"username": username, "password": password, "next": "/admin/"}, REMOTE_ADDR=address
    )
    return response.status_code


@pytest.mark.django_db
def test_the_admin_login_locks_a_username_after_5_failures_from_any_address():
    User.objects.create_user("manager", password="right-password-42", is_staff=True, is_superuser=True)
    client = Client()
    # A failed login shows the form again (200); four of them do not lock anything.
    assert [_login(client, "wrong") for _ in range(4)] == [200, 200, 200, 200]
    assert _login(client, "right-password-42") == 302
    client.logout()
    # The success reset the count: five more failures, then even the right password is refused.
    assert [_login(client, "wrong") for _ in range(5)] == [200, 200, 200, 200, 429]
    assert _login(client, "right-password-42") == 429
    assert client.get("/admin/").status_code == 302  # not logged in
    # The lock is the username's, whatever the address: a guesser cannot move to a new one.
    assert _login(Client(), "right-password-42", address="10.9.9.9") == 429
    # Another person from that other address still logs in.
    User.objects.create_user("attendant", password="another-password-7", is_staff=True)
    assert _login(Client(), "another-password-7", address="10.9.9.9", username="attendant") == 302


@pytest.mark.postgres
@pytest.mark.django_db
def test_postgresql_sessions_carry_the_statement_and_lock_limits():
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        statement = cursor.fetchone()[0]
        cursor.execute("SHOW lock_timeout")
        lock = cursor.fetchone()[0]
    assert (statement, lock) == ("30s", "10s")


@pytest.mark.postgres
def test_a_statement_past_the_limit_is_cancelled_and_a_lock_waited_on_too_long_fails():
    """The connection options of the settings, with the limits lowered to keep the test short."""
    options = settings.DATABASES["default"]["OPTIONS"]["options"]
    assert options == "-c statement_timeout=30000 -c lock_timeout=10000"
    short = options.replace("30000", "300").replace("10000", "200")
    params = settings.DATABASES["default"]
    conninfo = {
        "host": params["HOST"],
        "port": params["PORT"] or 5432,
        "user": params["USER"],
        "password": params["PASSWORD"],
        "dbname": params["NAME"],
        "options": short,
    }
    with psycopg.connect(**conninfo, autocommit=True) as holder, psycopg.connect(**conninfo) as waiter:
        with pytest.raises(psycopg.errors.QueryCanceled, match="statement timeout"):
            holder.execute("SELECT pg_sleep(2)")
        holder.execute("SELECT pg_advisory_lock(987654321)")
        try:
            with pytest.raises(psycopg.errors.LockNotAvailable, match="lock timeout"):
                waiter.execute("SELECT pg_advisory_xact_lock(987654321)")
        finally:
            holder.execute("SELECT pg_advisory_unlock(987654321)")


def test_tasks_have_a_soft_and_a_hard_time_limit():
    assert (app.conf.task_soft_time_limit, app.conf.task_time_limit) == (150, 180)
