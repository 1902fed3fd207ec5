"""The demo's database: created when DATABASE_URL names one that does not exist, or one sentence saying
how (never a traceback) when the server refuses or cannot be reached."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


def database_ensure(database_url: str) -> subprocess.CompletedProcess:
    env = {"PATH": os.environ.get("PATH", ""), "ENV_FILE": "", "DEBUG": "1", "DATABASE_URL": database_url}
    return subprocess.run(
        [sys.executable, "manage.py", "database_ensure"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def server() -> tuple[str, int, str]:
    db = settings.DATABASES["default"]
    return db["HOST"] or "localhost", int(db["PORT"] or 5432), db["USER"]


def admin_execute(statement: str) -> None:
    host, port, user = server()
    with psycopg.connect(host=host, port=port, user=user, dbname="postgres", autocommit=True) as conn:
        conn.execute(statement)


def test_an_unreachable_server_is_one_sentence_not_a_traceback() -> None:
    result = database_ensure("postgres://postgres@127.0.0.1:1/progressivo_nowhere")

    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("CommandError: PostgreSQL at 127.0.0.1:1 does not accept the connection (")
    assert lines[0].endswith("): start it, or correct DATABASE_URL.")


@pytest.mark.postgres
def test_a_missing_database_is_created_and_an_existing_one_left_alone() -> None:
    host, port, user = server()
    name = f"progressivo_ensure_{secrets.token_hex(4)}"
    url = f"postgres://{user}@{host}:{port}/{name}"
    try:
        created = database_ensure(url)
        again = database_ensure(url)

        assert (created.returncode, created.stdout, created.stderr) == (
            0,
            f"Created the database {name}.\n",
            "",
        )
        assert (again.returncode, again.stdout, again.stderr) == (0, "", "")
    finally:
        admin_execute(f"DROP DATABASE IF EXISTS {name}")


@pytest.mark.postgres
def test_a_user_who_may_not_create_it_is_told_how_in_one_sentence() -> None:
    host, port, _user = server()
    role = f"progressivo_nocreate_{secrets.token_hex(4)}"
    name = f"progressivo_missing_{secrets.token_hex(4)}"
    admin_execute(f"CREATE ROLE {role} LOGIN NOCREATEDB")
    try:
        result = database_ensure(f"postgres://{role}@{host}:{port}/{name}")
    finally:
        admin_execute(f"DROP DATABASE IF EXISTS {name}")
        admin_execute(f"DROP ROLE {role}")

    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        f"CommandError: The database {name} does not exist at {host}:{port} and {role} may not create it ("
    )
    assert lines[0].endswith(
        f"): create it with `createdb -h {host} -p {port} -U <a user allowed to> {name}`, "
        "then start the demo again."
    )
