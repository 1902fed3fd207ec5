"""One migrated test database for the whole run, copied for each pytest-xdist worker.

Migrating the schema from nothing takes 25-50 s on this two-core machine, and two workers did it side by side
at the start of every run. The first worker to get here migrates a template database once (in a process of
its own, `manage.py migrate`, as a deployment does, post_migrate's roles and permissions included); each
worker then copies it (`CREATE DATABASE … TEMPLATE`, about a second) and Django keeps the copy as it is.

The template's name carries a digest of the product's Python files and migrations: any change to them builds a
new one, so a copy never holds a schema older than the code under test. A template is built under another
name and renamed when its migrate has succeeded: a run killed mid-build leaves no template a later run
would trust."""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
from psycopg import sql

from bench.stack import url_with_database

ROOT = Path(__file__).resolve().parent.parent
# The product's Django code: what its migrations and post_migrate handlers are made of. The tests, the
# benchmarks and the gateway (no Django app) are not in it: changing them keeps the template.
PRODUCT = [
    p
    for p in ROOT.iterdir()
    if p.is_dir() and (p / "__init__.py").exists() and p.name not in {"tests", "bench", "gateway"}
]
LOCK = 0x70726F67  # the advisory lock the workers take while one of them builds the template


def code_digest() -> str:
    digest = hashlib.sha256()
    for package in sorted(PRODUCT):
        for path in sorted(package.rglob("*.py")):
            digest.update(str(path.relative_to(ROOT)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


@contextlib.contextmanager
def _locked(database: dict) -> Iterator[psycopg.Connection]:
    """A connection to the server's maintenance database, as the test database's user, holding the lock
    under which a template is built or copied (a template copied from must have no other session)."""
    params = {
        key.lower(): str(database[key]) for key in ("HOST", "PORT", "USER", "PASSWORD") if database.get(key)
    }
    with psycopg.connect(dbname="postgres", autocommit=True, **params) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", [LOCK])
        try:
            yield conn
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", [LOCK])


def _exists(conn: psycopg.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is not None


def _migrate(name: str) -> None:
    """`manage.py migrate` on database `name`: DATABASE_URL with its database replaced (its scheme, user,
    server and options as the suite's), and the test settings."""
    env = {
        **os.environ,
        "DATABASE_URL": url_with_database(os.environ["DATABASE_URL"], name),
        "DJANGO_SETTINGS_MODULE": "config.test_settings",
    }
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"], cwd=ROOT, env=env, check=True
    )


def template_build(database: dict, prefix: str) -> str:
    """The name of a template migrated for today's code, built if there is none; older ones are dropped."""
    name = f"{prefix}_tpl_{code_digest()}"
    with _locked(database) as conn:
        if _exists(conn, name):
            return name
        building = f"{name}_building"
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(building)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(building)))
        _migrate(building)
        conn.execute(
            sql.SQL("ALTER DATABASE {} RENAME TO {}").format(sql.Identifier(building), sql.Identifier(name))
        )
        stale = conn.execute(
            "SELECT datname FROM pg_database WHERE datname LIKE %s AND datname <> %s",
            [f"{prefix}\\_tpl\\_%", name],
        ).fetchall()
        for (old,) in stale:
            # Another checkout's run may be copying it: it goes at the next build.
            with contextlib.suppress(psycopg.errors.ObjectInUse):
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(old)))
    return name


def database_copy(database: dict, template: str, name: str) -> None:
    """The test database `name`, dropped if a run left it, as a copy of `template`."""
    with _locked(database) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(name), sql.Identifier(template))
        )
